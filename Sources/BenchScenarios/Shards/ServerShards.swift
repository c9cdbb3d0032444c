import BenchClients
import BenchCore
import BenchNet

/// `--server-procs`: the built-in server in several processes, so that a run holds more connections than one process's
/// descriptors allow and its server uses more than one core. A fanout or roundtrip server process serves a consecutive
/// share of the clients; a chat relay process hosts whole rooms (``ChatRooms/relayOfRoom(relays:)``).
public enum ServerShards {
    /// The most server processes a run takes.
    public static let most = 64
    /// A server process's descriptors kept for other things than its clients' connections: the run's own, and its
    /// client processes' control connections.
    static var reservedPerShard: Int { RunError.reservedDescriptors + 64 }

    /// Why a run of `configuration` cannot put its server in several processes; nil when it can.
    public static func refusal(of configuration: RunConfiguration) -> String? {
        if configuration.target != nil { return "it runs the built-in server, and a --target run has none" }
        if configuration.agentToken != nil { return "bench serve's agents connect to one server" }
        if configuration.link != nil { return "--link's emulator sits between one server and its clients" }
        if configuration.serverThreads > 1 { return "each server process writes on one thread: give --server-threads 1" }
        if configuration.port != 0 { return "each server process listens on a port of its own: give no --port" }
        if configuration.scenario == .fanout && configuration.isClosedLoop {
            return "a closed-loop broadcast waits for its own echoes: the processes' broadcasts would drift apart"
        }
        return nil
    }

    /// Server processes a run of `configuration` needs: 1 when one process's descriptors hold the server's end of every
    /// client (or the run cannot be split), else as many as split them within the limit (a chat run's: as many as hold
    /// its rooms whole; when none do, ``chatRelayRefusal(_:_:)`` says why).
    public static func needed(for configuration: RunConfiguration) -> Int {
        let limit = DescriptorLimit.raiseToHardLimit()
        guard refusal(of: configuration) == nil else { return 1 }
        if configuration.scenario == .chat, let plan = configuration.chatRooms {
            // One relay in this process, its members in children (one descriptor each), when it fits.
            guard configuration.clients + relayOverhead(configuration, inRunsProcess: true) > limit else { return 1 }
            let sizes = ChatRooms.sizes(clients: configuration.clients, plan: plan)
            return ChatRooms.relaysNeeded(sizes: sizes, capacity: relayCapacity(limit: limit), most: most)
                ?? min(most, plan.rooms)
        }
        guard configuration.clients + RunError.reservedDescriptors > limit else { return 1 }
        let perShard = max(1, limit - reservedPerShard)
        return min(most, (configuration.clients + perShard - 1) / perShard)
    }

    /// Descriptors a chat relay takes besides its members' ends: its listener and those kept in reserve.
    private static var relayOwnDescriptors: Int { 1 + RunError.reservedDescriptors }

    /// Descriptors the chat relay's process takes besides its members' ends; in the run's process, the measuring
    /// side's too (two for each client thread).
    static func relayOverhead(_ configuration: RunConfiguration, inRunsProcess: Bool) -> Int {
        relayOwnDescriptors + (inRunsProcess ? 2 * configuration.clientThreads : 0)
    }

    /// The members a chat relay process of its own holds under `limit` descriptors.
    static func relayCapacity(limit: Int) -> Int { limit - relayOwnDescriptors }

    /// Why `count` relay processes cannot hold `configuration`'s chat rooms whole within this process's descriptor
    /// limit; nil when they can (or the run is no chat). Said before anything starts.
    public static func chatRelayRefusal(_ count: Int, _ configuration: RunConfiguration) -> String? {
        guard configuration.scenario == .chat, let plan = configuration.chatRooms, plan.refusal(clients: configuration.clients) == nil
        else { return nil }
        let limit = DescriptorLimit.raiseToHardLimit()
        let capacity = relayCapacity(limit: limit)
        let sizes = ChatRooms.sizes(clients: configuration.clients, plan: plan)
        let why = "a relay process holds at most \(capacity) members (RLIMIT_NOFILE's hard limit is \(limit))"
        if let room = sizes.indices.first(where: { sizes[$0] > capacity }) {
            return "room \(room) has \(sizes[room]) members, and \(why): give more --rooms"
        }
        let most = ChatRooms.members(sizes: sizes, relays: count).max() ?? 0
        guard most > capacity else { return nil }
        return "\(count) relay processes would hold up to \(most) members each, and \(why): give more --server-procs"
    }

    /// Why `count` processes cannot host a chat run of `configuration`'s rooms whole; nil when they can (or the run is
    /// no chat).
    public static func chatRefusal(of count: Int, _ configuration: RunConfiguration) -> String? {
        guard configuration.scenario == .chat, let plan = configuration.chatRooms, count > plan.rooms else { return nil }
        return "each chat relay process hosts whole rooms: at most --rooms (\(plan.rooms))"
    }

    /// The environment variable that makes a `bench` process server shard `index` of `count`, with the run's seed and
    /// the run's process: `index/count/seed/parent`. Set by the run's process for each shard it starts (with the
    /// shard's channel as descriptor 3).
    public static let environmentName = "BENCH_SERVER_SHARD"

    /// A shard's place, as the run's process said it.
    public struct Place: Sendable, Equatable {
        public let index: Int
        public let count: Int
        public let seed: UInt64
        /// The run's process: the shard ends with it.
        public let parent: Int32

        public init(index: Int, count: Int, seed: UInt64, parent: Int32) {
            (self.index, self.count, self.seed, self.parent) = (index, count, seed, parent)
        }

        /// The value of ``ServerShards/environmentName`` that says it.
        public var text: String { "\(index)/\(count)/\(seed)/\(parent)" }
    }

    /// What a shard's process reads of ``environmentName``: nil when it is none.
    public static func place(from text: String) -> Place? {
        let parts = text.split(separator: "/")
        guard parts.count == 4, let index = Int(parts[0]), let count = Int(parts[1]), let seed = UInt64(parts[2]),
            let parent = Int32(parts[3]), parent > 1, (1...most).contains(count), (0..<count).contains(index)
        else { return nil }
        return Place(index: index, count: count, seed: seed, parent: parent)
    }

    /// Shard `index` of `count`'s own run of `configuration`: its share of the clients, numbered from 0. A fanout
    /// shard has the run's seed (one timetable for all); a roundtrip shard one derived from it and its place, so that
    /// its clients' timetables (drawn by their numbers, which every shard starts from 0) are not the other shards'.
    /// With `--connect-rate`, its clients connect at its share of the rate.
    public static func shard(_ index: Int, of count: Int, seed: UInt64, _ configuration: RunConfiguration) -> RunConfiguration {
        var shard = configuration
        var derived = SplitMix64(seed: seed, stream: UInt64(index) + 1)
        shard.seed = configuration.scenario == .fanout ? seed : derived.next()
        shard.connectInterval = configuration.connectInterval.map { $0 * UInt64(count) }
        shard.clients = (0..<configuration.clients).evenShares(count)[index].count
        shard.clientThreads = min(shard.clientThreads, max(1, shard.clients))
        // Its clients connect while every other shard's do: its setup has the whole run's time.
        shard.setupTimeout += UInt64(configuration.clients - shard.clients) * RunConfiguration.setupTimePerClient
        return shard
    }
}
