import Glibc
import Testing

@testable import BenchNet

/// A descriptor has one owner, which closes it once; in debug builds (as `swift test` runs) a close by anyone else
/// traps where it happens, instead of closing the number another thread has opened since (issue 48: a test's epoll
/// returned another test's events).
@Suite(.timeLimit(.minutes(10))) struct DescriptorOwnershipTests {
    @Test func theLedgerNamesTheOwnerOfEveryOpenDescriptorAndForgetsItOnceClosed() throws {
        var number: Int32 = -1
        do {
            let notifier = try EventNotifier()
            number = notifier.descriptor
            #expect(DescriptorLedger.owner(of: number).map { "\($0)" } == "EventNotifier")
        }
        // Released at the end of its scope, so closed: the ledger no longer owns the number (another test may own
        // it again already, under another owner's name).
        #expect(DescriptorLedger.owner(of: number).map { "\($0)" } != "EventNotifier")
    }

    @Test func aConnectionClosedTwiceClosesItsSocketOnce() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.client) }
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: pair.server, owner: "a test's socket"), token: 1, epoll: Epoll(),
            role: .server, settings: TransportSettings(maximumFrameSize: 64), maximumQueuedBytes: 1024)
        connection.close()
        connection.close()  // a second close of the number would trap in the ledger, or close another's descriptor
        #expect(!connection.isOpen)
        try Posix.setNonBlocking(pair.client, false)
        var byte: UInt8 = 0
        #expect(recv(pair.client, &byte, 1, 0) == 0, "the peer sees the connection closed")
    }

    /// A channel's end that a run's configuration, a thread and the run's end all refer to: whichever closes it first
    /// closes it, the others' closes do nothing (a second close would trap in the ledger, or close another's number),
    /// and the last reference gone closes what nobody did.
    @Test func aSharedDescriptorClosesOnceWhoeverClosesItFirst() throws {
        let (mine, peer) = try Posix.socketPair()
        defer { Posix.close(peer) }
        let shared = SharedDescriptor(owning: mine, owner: "a test's channel")
        let copies = [shared, shared]
        #expect(shared.isOpen && DescriptorLedger.owner(of: mine).map { "\($0)" } == "a test's channel")
        copies[0].close()
        copies[1].close()
        #expect(!shared.isOpen && shared.relinquish() == nil)
        var byte: UInt8 = 0
        #expect(recv(peer, &byte, 1, 0) == 0, "the peer sees its channel end")

        let (other, otherPeer) = try Posix.socketPair()
        defer { Posix.close(otherPeer) }
        do { _ = SharedDescriptor(owning: other, owner: "a test's dropped channel") }
        #expect(recv(otherPeer, &byte, 1, 0) == 0, "dropped by its last holder: closed")
    }

    /// Each trap below must come at the wrong call itself: the child exits cleanly right after it (before any owner's
    /// own close could trap on the number instead), so on the old code, which let the call through, it exits 0.
    @Test func aRawCloseOfANumberThatADescriptorOwnsTraps() async {
        await #expect(processExitsWith: .failure) {
            let notifier = try EventNotifier()
            Posix.close(notifier.descriptor)
            _exit(0)
        }
    }

    @Test func aDescriptorClosedBehindItsOwnersBackTrapsWhenItsNumberIsOpenedAgain() async {
        await #expect(processExitsWith: .failure) {
            let notifier = try EventNotifier()
            let number = notifier.descriptor
            Glibc.close(number)  // behind the ledger's back
            // The number opened again: dup2 puts a descriptor there whatever else the process opens meanwhile (waiting
            // for the lowest free number to come back, one CI run's child saw another thread take it first).
            let copy = dup2(STDERR_FILENO, number)
            withExtendedLifetime(notifier) { _ = Descriptor(owning: copy, owner: "a test's copy") }
            _exit(0)
        }
    }

    @Test func readingAnEventPastWhatTheWaitReturnedTraps() async {
        await #expect(processExitsWith: .failure) {
            let epoll = try Epoll()
            #expect(try epoll.wait(timeoutMilliseconds: 0) == 0)
            _ = epoll.event(at: 0)
            _exit(0)
        }
    }
}
