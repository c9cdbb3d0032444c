import BenchCore
import Testing

@testable import BenchScenarios

/// An agent's report of its own link comes from the network: the server takes one link that reads, once, before the
/// run, from the agent it names, in a run without a link of its own; and the groups it makes of the agents' clients.
@Suite struct AgentLinkTests {
    let agent = AgentRecord(host: "h", pid: 1, firstClient: 4, clients: 2, sameBoot: true)

    func take(
        _ text: String, length: Int? = nil, client: UInt32 = 4, agent: AgentRecord? = nil, running: Bool = false,
        runLink: LinkMix? = nil, others: [String] = []
    ) -> AgentAdmission.LinkReport {
        AgentAdmission.take(
            linkReport: ClientReport(.link, client: client, time: UInt64(length ?? text.utf8.count), text: text),
            of: agent ?? self.agent, running: running, runLink: runLink, otherLinks: others)
    }

    func refused(_ outcome: AgentAdmission.LinkReport, saying words: String) -> Bool {
        guard case .refused(let reason) = outcome else { return false }
        return reason.contains(words)
    }

    @Test func oneLinkThatReadsIsTakenOnceBeforeTheRunFromItsOwnAgentInPiecesThatAddUp() throws {
        #expect(take("lte") == .link("lte"))
        #expect(take("delay=40ms,jitter=5ms") == .link("delay=40ms,jitter=5ms"))
        // A long spec in pieces, each with the whole length: the first waits, the last completes it.
        let long = "rate=1mbit,delay=100ms,blackout=5s@30s,every=60s"
        #expect(take(String(long.prefix(28)), length: long.utf8.count) == .piece(String(long.prefix(28))))
        var partway = agent
        partway.linkPieces = String(long.prefix(28))
        #expect(take(String(long.dropFirst(28)), agent: partway, others: []) == .refused(
            "the pieces of its link report do not add up to the length it gave"), "the length is the whole link's")
        #expect(take(String(long.dropFirst(28)), length: long.utf8.count, agent: partway) == .link(long))
        #expect(refused(take("lte", length: 2), saying: "do not add up"))
        #expect(refused(take("lte", length: 0), saying: "do not add up"))
        #expect(refused(take("lte", length: 10_000), saying: "do not add up"))
        #expect(refused(take("5g"), saying: "does not read"))
        #expect(refused(take("lte:50%,3g:50%"), saying: "not a mix"))
        #expect(take("lte", client: 0) == .refused("its link report is not its own"))
        var linked = agent
        linked.link = "3g"
        #expect(refused(take("lte", agent: linked), saying: "twice"))
        #expect(refused(take("lte", running: true), saying: "after the run began"))
        #expect(refused(take("lte", runLink: try LinkMix(parsing: "3g")), saying: "an agent brings no link of its own"))
        let seven = (1...7).map { "delay=\($0)ms" }
        #expect(refused(take("delay=8ms", others: seven), saying: "at most 8 link groups"), "the groups fit a byte")
        #expect(take("delay=1ms", others: seven) == .link("delay=1ms"), "a link another agent brought is its group")
        #expect(
            AgentAdmission.take(linkReport: nil, of: agent, running: false, runLink: nil, otherLinks: [])
                == .refused("its link report is not its own"), "unreadable")
    }

    @Test func theAgentsClientsAreGroupedByTheirLinksAndTheRestAreNone() {
        var first = AgentRecord(host: "a", pid: 1, firstClient: 0, clients: 2, sameBoot: true)
        var second = AgentRecord(host: "b", pid: 2, firstClient: 2, clients: 3, sameBoot: true)
        #expect(LinkGrouping.of([first, second], clients: 5) == nil, "no agent brought a link")
        second.link = "3g"
        #expect(LinkGrouping.of([first, second], clients: 5) == LinkGrouping(names: ["none", "3g"], groupOfClient: [0, 0, 1, 1, 1]))
        first.link = "lte"
        #expect(LinkGrouping.of([first, second], clients: 5) == LinkGrouping(names: ["lte", "3g"], groupOfClient: [0, 0, 1, 1, 1]))
        #expect(
            LinkGrouping.of([first, second], clients: 6) == LinkGrouping(names: ["none", "lte", "3g"], groupOfClient: [1, 1, 2, 2, 2, 0]),
            "a client no agent holds (the run's own) is none")
    }
}
