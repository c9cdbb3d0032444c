import BenchClients
import BenchCore
import BenchNet

/// A fan-out target run's subscribers in child processes (`--client-procs`, `bench clients --channel`): each child
/// is told over its channel, as an agent is, which ids are its and what they speak (a welcome, then the run's
/// ``ClientSpec`` with the target), then reports on it what a ``ClientGroup`` on a thread would. Children run on
/// this machine's boot, so their monotonic clock is this process's.
enum ChildProcessChannels {
    /// Sends every child of `configuration.clientGroupChannels` its welcome and spec, and returns the measuring
    /// thread's ends (made non-blocking) and each child's record for `agents.csv` (this host, its pid, its ids; on this
    /// machine's clock, so with no clock rounds).
    static func welcome(
        _ configuration: RunConfiguration, target: TargetSettings, trust: TLSTrust?
    ) throws(RunError) -> (channels: [ClientGroupChannel], children: [AgentRecord]) {
        let shares = ChildProcesses.idShares(
            of: configuration.clients, among: configuration.clientGroupChannels.count,
            perConnection: configuration.subscribersPerConnection)
        let spec = spec(of: configuration, target: target, trust: trust)
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
        defer { frame.deallocate() }
        var channels: [ClientGroupChannel] = []
        var children: [AgentRecord] = []
        for (child, ids) in zip(configuration.clientGroupChannels, shares) {
            let descriptor = child.descriptor
            AgentWelcome(configuration, firstClient: ids.lowerBound, clients: ids.count, runToken: configuration.token)
                .encode(into: frame)
            do throws(SystemError) {
                try Posix.sendAll(descriptor, UnsafeRawBufferPointer(frame))
                try Posix.sendAll(descriptor, spec)
                try Posix.setNonBlocking(descriptor)
            } catch {
                throw .setupFailed("a subscribers' process went before it was told its share: \(error)")
            }
            channels.append(ClientGroupChannel(end: child.end, ids: ids))
            children.append(AgentRecord(
                host: Posix.hostName, pid: child.processID, firstClient: ids.lowerBound,
                clients: ids.count, sameBoot: true))
        }
        return (channels, children)
    }
}

extension ChildProcessChannels {
    /// What a child or an agent is sent after its welcome: the target, what its clients send first, the framing, in
    /// roundtrip what they send, and how a target over TLS is trusted (`trust`: `--tls-ca`, `--tls-pin`,
    /// `--tls-insecure` as read for this process's own connections).
    static func spec(of configuration: RunConfiguration, target: TargetSettings, trust: TLSTrust?) -> [UInt8] {
        var clients = target
        if configuration.scenario == .fanout { clients.publishTemplate = .bare }  // the publisher's, not the clients'
        var spec = ClientSpec(
            // The path in use, explicit or the scheme's: a child's is exactly this process's.
            transport: .tcp, webSocketPath: target.webSocketPathInUse ?? "/",
            tlsTrust: trust, target: clients,
            chat: configuration.chatRooms.map { ClientSpec.ChatDeal(plan: $0, seed: configuration.seed) },
            connectInterval: configuration.connectInterval)
        spec.link = configuration.link.map { ClientSpec.LinkDeal(mix: $0, seed: configuration.seed, clients: configuration.clients) }
        spec.relayPorts = configuration.chatRelays.map(\.port)
        spec.reconnect = configuration.reconnect
        spec.silenceLimit = configuration.silenceLimit
        spec.sourceAddresses = configuration.sourceAddresses
        return spec.encoded()
    }
}

extension AgentWelcome {
    /// The welcome of `configuration`'s run for an agent (or a child) given `clients` ids from `firstClient`, whose
    /// clients carry `runToken`.
    init(_ configuration: RunConfiguration, firstClient: Int, clients: Int, runToken: UInt64) {
        self.init(
            scenario: UInt8(Scenario.allCases.firstIndex(of: configuration.scenario)!),
            timestamps: configuration.timestamps == .user ? 0 : configuration.timestamps == .kernel ? 1 : 2,
            firstClient: UInt32(firstClient), clients: UInt32(clients), runToken: runToken,
            payload: UInt32(configuration.payload), totalClients: UInt32(configuration.clients),
            heartbeat: configuration.heartbeat)
    }
}
