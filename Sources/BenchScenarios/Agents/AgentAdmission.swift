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

    /// Why an agent brings no link of its own into a run of `runLink`: said by the agent, and by the server to one that
    /// did not say it.
    static func runHasItsLink(_ runLink: LinkMix) -> String {
        "the run puts its clients behind --link \(runLink.text): an agent brings no link of its own"
    }

    /// What a piece of an agent's link report does.
    enum LinkReport: Equatable {
        /// The link so far: more pieces come.
        case piece(String)
        /// The whole link, taken.
        case link(String)
        /// Turned away, and why.
        case refused(String)
    }

    /// Takes a piece of `agent`'s report of its own link (`report`, nil: unreadable; its `time` is the whole link's
    /// length in bytes, at most ``ClientReport/maximumTextSize``). Refused when it is not the agent's, comes after the
    /// run began or after its link, does not add up to its length, is not one link as `--link` reads it, would make
    /// more link groups than a mix may have (`otherLinks`: the other agents'), or the run puts every client behind a
    /// link of its own (`runLink`).
    static func take(
        linkReport report: ClientReport?, of agent: AgentRecord, running: Bool, runLink: LinkMix?, otherLinks: [String]
    ) -> LinkReport {
        guard let report, report.client == agent.firstClient else { return .refused("its link report is not its own") }
        if let runLink { return .refused(runHasItsLink(runLink)) }
        if agent.link != nil || running { return .refused("it reported its link twice, or after the run began") }
        let sofar = agent.linkPieces + report.text
        guard report.time > 0, report.time <= UInt64(ClientReport.maximumTextSize), sofar.utf8.count <= Int(report.time) else {
            return .refused("the pieces of its link report do not add up to the length it gave")
        }
        guard sofar.utf8.count == Int(report.time) else { return .piece(sofar) }
        do {
            let mix = try LinkMix(parsing: sofar)
            if mix.isMix { return .refused("an agent's clients sit behind one link, not a mix ('\(sofar.prefix(60))')") }
        } catch {
            return .refused("its link '\(sofar.prefix(60))' does not read: \(error.reason)")
        }
        // The groups: every agent link, and `none` for the clients of agents without one.
        guard Set(otherLinks + [sofar]).count < LinkMix.mostGroups else {
            return .refused("the run's agents bring \(LinkMix.mostGroups - 1) links already: a run has at most "
                + "\(LinkMix.mostGroups) link groups, none included")
        }
        return .link(sofar)
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
