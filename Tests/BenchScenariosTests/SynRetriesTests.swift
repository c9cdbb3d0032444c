import Testing

@testable import BenchScenarios

/// A herd of connects against a small accept backlog shows as connects of about 1 s (a SYN sent again): the run names
/// the likely cause (issue 47: 13% of the connects to a Python server took 1.03 s, and nothing said why).
@Suite struct SynRetriesTests {
    @Test func connectsJustPastASynRetransmissionAreCountedAndNamed() {
        let fast = Array(repeating: UInt64(800_000), count: 87)
        let retried = Array(repeating: UInt64(1_030_000_000), count: 12) + [3_100_000_000]
        let times = fast + retried + [0, 2_000_000_000]  // one never connected, one slow for another reason
        #expect(SynRetries.count(in: times) == 13)
        let note = SynRetries.note(count: 13, of: 101) ?? ""
        #expect(note.contains("13 of 101 connects (12.9%)") && note.contains("accept backlog"), "\(note)")
    }

    @Test func aStrayOrARareSlowConnectSaysNothing() {
        #expect(SynRetries.note(count: 1, of: 10) == nil, "one is no cluster")
        #expect(SynRetries.note(count: 5, of: 1_000) == nil, "under 1%")
        #expect(SynRetries.note(count: 10, of: 1_000) != nil)
    }
}
