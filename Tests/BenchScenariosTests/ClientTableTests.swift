import BenchCore
import BenchNet
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
            _ = try loop.wait(timeoutMilliseconds: 1_000) { _, events in
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
}
