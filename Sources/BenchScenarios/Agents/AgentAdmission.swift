import BenchCore
import BenchNet

/// What every role that takes agents (the built-in server, a fan-out target's measuring thread) checks of an agent's
/// hello and answers on its control connection, written once.
enum AgentAdmission {
    /// Why the agent whose hello is `frame` is turned away (nil: welcome it): it said hello before, speaks another
    /// protocol version, does not know the run's token (`expected`, nil: the run takes no agents), came after the run
    /// began, or asks for no ids or more than `left` of the run's `total`.
    static func refusal(
        of frame: Frame, saidHelloBefore: Bool, expected: UInt64?, running: Bool, left: Int, total: Int
    ) -> String? {
        let hello = AgentHello(frame)
        let who = "agent \(hello.host) (pid \(hello.pid))"
        if saidHelloBefore { return "\(who) said hello twice" }
        if frame.bytes[5] != WireFormat.version {
            return "\(who) speaks protocol version \(frame.bytes[5]); this server speaks \(WireFormat.version)"
        }
        guard let expected else { return "\(who): this run takes no agents (bench serve does)" }
        if hello.token != expected { return "\(who) does not know this run's --token" }
        if running { return "\(who) came after the run started" }
        if hello.clients == 0 || Int(hello.clients) > left {
            return "\(who) asked for \(hello.clients) clients; \(left) of the run's \(total) are left"
        }
        return nil
    }

    /// Why an agent's report of its own link (`report`, nil: unreadable) is refused (nil: take it): it is not one link
    /// as `--link` reads it, comes a second time or after the run began, or the run puts every client behind its own.
    static func refusal(ofLink report: ClientReport?, agent: AgentRecord, running: Bool, runLink: LinkMix?) -> String? {
        guard let report, report.client == agent.firstClient else { return "its link report is not its own" }
        if let runLink { return "this run puts its clients behind --link \(runLink.text): an agent brings no link of its own" }
        if agent.link != nil || running { return "it reported its link twice, or after the run began" }
        do {
            let mix = try LinkMix(parsing: report.text)
            if mix.isMix { return "an agent's clients sit behind one link, not a mix ('\(report.text.prefix(60))')" }
        } catch {
            return "its link '\(report.text.prefix(60))' does not read: \(error.reason)"
        }
        return nil
    }

    /// The record of an agent welcomed with `clients` ids from `first`.
    static func record(of frame: Frame, firstClient first: Int) -> AgentRecord {
        let hello = AgentHello(frame)
        return AgentRecord(
            host: hello.host, pid: Int(hello.pid), firstClient: first, clients: Int(hello.clients),
            sameBoot: hello.boot == AgentToken.hash(Posix.bootIdentifier))
    }

    /// The answer to a clock probe read at `t2`: t3 is taken right before it is written, into `buffer`
    /// (``WireFormat/clockFrameSize`` bytes).
    static func clockReply(to frame: Frame, readAt t2: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        var reply = ClockProbe(frame)
        reply.t2 = t2
        reply.t3 = MonotonicClock.now()
        reply.encode(.clockReply, into: buffer)
    }

    /// What a setup that timed out waiting for agents says about them: who joined with how many, and how many ids no
    /// agent took.
    static func summary(of agents: [AgentRecord], missing: Int, ids: String) -> String {
        let joined = agents.map { "\($0.host) (pid \($0.pid)): \($0.clients)" }
        return "; agents joined: " + (joined.isEmpty ? "none" : joined.joined(separator: ", "))
            + "; \(missing) \(ids) ids not taken by any agent"
    }
}
