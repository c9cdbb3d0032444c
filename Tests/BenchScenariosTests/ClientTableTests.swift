@testable import BenchClients
import BenchCore
import BenchNet
import Glibc
import Testing

@testable import BenchScenarios

/// The one table every client role keeps its connections in: the connect window, the handshakes' end (a connect time
/// once per client), closes and reconnects, counted alike for all. Real connects to a listener on 127.0.0.1; each wait
/// for one is bounded by a count of one-second waits that only a hang reaches.
@Suite struct ClientTableTests {
    private let loop: ClientLoop<TCP>
    private let listener: Int32
    private let address: SocketAddress

    init() throws {
        loop = try ClientLoop<TCP>(
            settings: TransportSettings(maximumFrameSize: 64), maximumQueuedBytes: 1 << 20, busyPoll: false,
            kernelClock: nil, readSize: 128)
        (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
    }

    /// A connect under way, as a role starts one.
    private func connect(token: UInt64) throws -> Connection<TCP> {
        try loop.connect(to: address, token: token, transmitStamps: false)
    }

    /// Waits (at most 60 one-second waits) until `connection`'s connect has ended, as a role's event handling does.
    private func establish(_ connection: Connection<TCP>) throws {
        for _ in 0..<60 where !connection.isEstablished {
            _ = try loop.wait(timeoutNanoseconds: 1_000_000_000) { _, events in
                if events.contains(.writable) { try? connection.writeQueued() }
                return true
            }
        }
        try #require(connection.isEstablished)
    }

    @Test func firstConnectsStartInPlaceOrderAndAtMostAWindowAtOnce() throws {
        defer { Posix.close(listener) }
        var table = ClientTable<TCP>(count: 4, window: 2)
        defer { table.closeAll() }
        #expect(table.nextToConnect(at: 1) == 0)
        let first = try connect(token: 1)
        table.started(first)
        table.started(try connect(token: 2))
        #expect(table.nextToConnect(at: 1) == nil, "two under way fill a window of two")
        #expect((table.connecting, table.open) == (2, 2))

        try establish(first)
        let done = table.handshakesDone(0)
        let connectTime = try #require(done)
        #expect(connectTime == max(1, first.establishedAt - first.startedAt))
        #expect(!table.isSettingUp(0) && table.isSettingUp(1))
        #expect(table.nextToConnect(at: 1) == 2, "a connect done frees its place in the window")

        table.started(nil)  // place 2's connect could not start: it takes no place in the window
        #expect(table[2] == nil && !table.isSettingUp(2))
        #expect(table.nextToConnect(at: 1) == 3 && !table.allStarted)
        table.started(try connect(token: 4))
        #expect(table.allStarted && table.nextToConnect(at: 1) == nil)
        #expect((table.connecting, table.open) == (2, 3))
    }

    /// Behind a link (issue 64's handshake): a connect whose socket is connected at once on loopback is held until its
    /// link's handshake would end: its writable event is set aside, the table's next connect due is that time, and once
    /// the table let it end, the connect ends (never before its time).
    @Test func aConnectThroughALinkEndsNoSoonerThanItsHandshake() throws {
        defer { Posix.close(listener) }
        var table = ClientTable<TCP>(count: 2, window: 1)
        defer { table.closeAll() }
        let connection = try connect(token: 1)
        let end = connection.startedAt + 1_000_000_000  // a second: only a hang takes the first event past it
        connection.connectNotBefore = end
        table.started(connection)
        #expect(table.nextConnectDue() == end)
        #expect(table.nextToConnect(at: 1) == 1, "connected in the kernel, it takes no place in the window")
        table.started(nil)
        // The kernel ends the connect at once: its writable event comes and is set aside, and none comes after it.
        var writables = 0
        for _ in 0..<3 {
            _ = try loop.wait(timeoutNanoseconds: 20_000_000) { _, events in
                if events.contains(.writable) {
                    writables += 1
                    try? connection.writeQueued()
                }
                return true
            }
        }
        #expect(writables == 1 && !connection.isEstablished, "held: \(writables) events")
        while MonotonicClock.now() < end {
            table.letHeldConnectsEnd(at: MonotonicClock.now())
            usleep(10_000)
        }
        #expect(!connection.isEstablished, "nothing lets it end but the table, at its time")
        table.letHeldConnectsEnd(at: MonotonicClock.now())
        #expect(table.nextConnectDue() == nil)
        try establish(connection)
        #expect(connection.connectedAt >= end)
    }

    @Test func aClientClosedAndConnectedAgainKeepsItsFirstConnectTime() throws {
        defer { Posix.close(listener) }
        var table = ClientTable<TCP>(count: 1, window: 1)
        defer { table.closeAll() }
        let first = try connect(token: 1)
        table.started(first)
        try establish(first)
        let done = table.handshakesDone(0)
        let connectTime = try #require(done)
        let doneAgain = table.handshakesDone(0)
        #expect(doneAgain == nil, "done once per connection")

        let closes = (table.close(0), table.close(0))
        #expect(closes.0 == false, "closed after its handshakes")
        #expect(closes.1 == nil, "a second close finds nothing open")
        #expect(!first.isOpen && (table.connecting, table.open) == (0, 0))

        let again = try connect(token: 1)
        table.restarted(0, again)
        #expect(table.isSettingUp(0) && (table.connecting, table.open) == (1, 1))
        try establish(again)
        let reconnectDone = table.handshakesDone(0)
        #expect(reconnectDone == nil, "a reconnect is not a connect time")
        #expect(table.connectTimes[0] == connectTime)
        #expect(!table.isSettingUp(0) && table.connecting == 0)
    }

    @Test func aCloseDuringTheHandshakesFreesItsPlaceInTheWindow() throws {
        defer { Posix.close(listener) }
        var table = ClientTable<TCP>(count: 2, window: 1)
        defer { table.closeAll() }
        table.started(try connect(token: 1))
        #expect(table.nextToConnect(at: 1) == nil)
        let wasSettingUp = table.close(0)
        #expect(wasSettingUp == true, "closed before its handshakes were done")
        #expect(table.nextToConnect(at: 1) == 1 && table.connectTimes[0] == 0)
        #expect((table.connecting, table.open) == (0, 0))
    }

    /// `--connect-rate`: the run's client k is due k intervals after the first connects began, on whichever thread
    /// it is; the window still holds.
    @Test func pacedConnectsAreDueTheirClientsIntervalsAfterTheStart() throws {
        defer { Posix.close(listener) }
        let start: UInt64 = 1_000_000
        var table = ClientTable<TCP>(count: 3, window: 2, pace: .init(firstClient: 4, interval: 1_000, start: start))
        #expect(table.nextToConnect(at: start) == nil, "client 4 is due 4 intervals after the start")
        #expect(table.nextDue == start + 4_000)
        #expect(table.nextToConnect(at: start + 3_999) == nil)
        #expect(table.nextToConnect(at: start + 4_000) == 0)
        table.started(nil)
        #expect(table.nextDue == start + 5_000 && table.nextToConnect(at: start + 4_500) == nil)
        #expect(table.nextToConnect(at: start + 9_000) == 1, "late: due at once")
        let (listener2, address2) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener2) }
        var full = ClientTable<TCP>(count: 3, window: 1, pace: .init(firstClient: 0, interval: 1_000, start: start))
        full.started(try loop.connect(to: address2, token: 1, transmitStamps: false))
        #expect(full.nextDue == nil, "a full window waits for a connect's end, not for a time")
        full.closeAll()
        table.started(nil)
        table.started(nil)
        #expect(table.nextDue == nil && table.nextToConnect(at: start + 99_000) == nil, "none left")
        let unpaced = ClientTable<TCP>(count: 1, window: 1)
        #expect(unpaced.nextToConnect(at: 1) == 0 && unpaced.nextDue == nil)
    }

    @Test func abandonedPlacesCountAsStartedWithNoConnection() throws {
        defer { Posix.close(listener) }
        var table = ClientTable<TCP>(count: 3, window: 128)
        table.abandonTheRest()
        #expect(table.allStarted && table.connections.allSatisfy { $0 == nil })
        #expect((table.connecting, table.open) == (0, 0))
    }

    /// The one rule every role's connects follow: firsts a window at a time; a first that cannot start counts as
    /// started without a connection (and may stop the rest); a return whose connect fails at once is that try failing,
    /// the next one waits, and past its tries the client gives up.
    @Test func dueConnectsStartFirstsThenReturnsAndAReturnThatFailsAtOnceUsesATry() throws {
        defer { Posix.close(listener) }
        let backoff = ReconnectBackoff(base: 1, maximum: 1, tries: 2)
        var table = ClientTable<TCP>(
            count: 3, window: 2, returns: ReconnectSchedule(backoff, seed: 1, firstClient: 0, count: 3))
        defer { table.closeAll() }
        var refused: [Int] = []
        var stopped = table.startDueConnects(
            at: 1, connect: { place, isReturn in
                #expect(!isReturn)
                if place == 1 { throw SystemError("connect", errno: ECONNREFUSED) }
                return try connect(token: UInt64(place + 1))
            },
            cannotStart: { place, _ in
                refused.append(place)
                return true
            },
            gaveUp: { _, _ in Issue.record("nobody has returned yet") })
        #expect(stopped && refused == [1], "place 1 could not start and the rest went on")
        #expect(table[1] == nil && table.open == 2 && table.allStarted, "a window of two: 0 and 2 under way")
        #expect(table.nextConnectDue() == nil && !table.returnsWaiting)

        table.close(0)
        let decision = table.lost(0, afterUse: true, at: 10)
        guard case .tryAgain(let due) = decision else { return #expect(Bool(false), "a first try after a drop") }
        #expect((10...11).contains(due), "a backoff of 1 ns: at most 1 ns with its jitter")
        #expect(table.returnsWaiting && table.nextConnectDue() == due)
        var gaveUp: [(Int, Int)] = []
        for now: UInt64 in [11, 100, 1_000] {  // its tries: the first after the drop, then one more, then none
            _ = table.startDueConnects(
                at: now, connect: { place, isReturn in
                    #expect(isReturn && place == 0)
                    throw SystemError("connect", errno: ECONNREFUSED)
                },
                cannotStart: { _, _ in true }, gaveUp: { gaveUp.append(($0, $1)) })
        }
        #expect(gaveUp.count == 1 && gaveUp.first?.0 == 0 && gaveUp.first?.1 == 2, "two tries failed: it gave up")
        #expect(!table.returnsWaiting && table[0].map { !$0.isOpen } == true)

        var second = ClientTable<TCP>(count: 2, window: 2)
        stopped = second.startDueConnects(
            at: 1, connect: { _, _ in throw SystemError("connect", errno: ECONNREFUSED) },
            cannotStart: { _, _ in false }, gaveUp: { _, _ in })
        #expect(!stopped && second.connections.count == 1, "a setup that failed starts no more")
    }
}
