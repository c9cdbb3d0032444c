import BenchCore
import Testing

@testable import BenchScenarios

/// An agent's report of its own link comes from the network: the server takes one link that reads, once, before the
/// run, from the agent it names, in a run without a link of its own; and the groups it makes of the agents' clients.
@Suite struct AgentLinkTests {
    let agent = AgentRecord(host: "h", pid: 1, firstClient: 4, clients: 2, sameBoot: true)

    func refusal(_ text: String, client: UInt32 = 4, agent: AgentRecord? = nil, running: Bool = false, runLink: LinkMix? = nil) -> String? {
        AgentAdmission.refusal(
            ofLink: ClientReport(.link, client: client, time: 0, text: text), agent: agent ?? self.agent, running: running,
            runLink: runLink)
    }

    @Test func onlyOneLinkThatReadsIsTakenOnceBeforeTheRunFromItsOwnAgent() throws {
        #expect(refusal("lte") == nil)
        #expect(refusal("delay=40ms,jitter=5ms") == nil)
        #expect(refusal("5g")?.contains("does not read") == true)
        #expect(refusal(String(repeating: "x", count: 600))?.contains("does not read") == true)
        #expect(refusal("lte:50%,3g:50%")?.contains("not a mix") == true)
        #expect(refusal("lte", client: 0) == "its link report is not its own")
        var linked = agent
        linked.link = "3g"
        #expect(refusal("lte", agent: linked)?.contains("twice") == true)
        #expect(refusal("lte", running: true)?.contains("after the run began") == true)
        #expect(refusal("lte", runLink: try LinkMix(parsing: "3g"))?.contains("an agent brings no link of its own") == true)
        #expect(AgentAdmission.refusal(ofLink: nil, agent: agent, running: false, runLink: nil) != nil, "unreadable")
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
