@testable import BenchClients
import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// The one loop every thread of simulated clients runs on: its connects, its waits, `--busy-poll`, io_uring. Each wait
/// for an event is bounded by a count of one-second waits that only a hang reaches.
@Suite struct ClientLoopTests {
    /// One-second waits before a connect to a listener on this machine is taken for hung.
    private static let patience = 60

    private static func loop(busyPoll: Bool) throws -> ClientLoop<TCP> {
        try ClientLoop<TCP>(
            settings: TransportSettings(maximumFrameSize: 64), maximumQueuedBytes: 1 << 20, busyPoll: busyPoll,
            kernelClock: nil, readSize: 128)
    }

    @Test func aBusyPollingLoopNeverSleepsInItsWait() throws {
        let loop = try Self.loop(busyPoll: true)
        var events = 0
        // Nothing is ready and the wait asks for no bound: only a spin returns (a sleep would reach the time limit).
        for _ in 0..<1_000 { #expect(try loop.wait(timeoutNanoseconds: nil) { _, _ in events += 1; return true }) }
        #expect(events == 0)
        #expect(!loop.observedCPUs.isEmpty, "each wait notes the CPU it ran on")
    }

    @Test(arguments: [false, true])
    func aConnectStartedByTheLoopIsHandedBackAsItsTokensEvent(busyPoll: Bool) throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let loop = try Self.loop(busyPoll: busyPoll)
        let connection = try loop.connect(to: address, token: 42, transmitStamps: false)
        var seen: [UInt64] = []
        for _ in 0..<Self.patience where !seen.contains(42) {
            _ = try loop.wait(timeoutNanoseconds: 1_000_000_000) { token, events in
                if events.contains(.writable) { seen.append(token) }
                return true
            }
        }
        #expect(seen.contains(42) && seen.allSatisfy { $0 == 42 })
        connection.close()
    }

    @Test func aLoopThatEndsItsPassSaysSo() throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let loop = try Self.loop(busyPoll: false)
        let connection = try loop.connect(to: address, token: 7, transmitStamps: false)
        var proceed = true
        for _ in 0..<Self.patience where proceed {
            proceed = try loop.wait(timeoutNanoseconds: 1_000_000_000) { token, _ in token != 7 }
        }
        #expect(!proceed, "the handler ended the pass at the connect's event")
        connection.close()
    }

    @Test func aLoopOnIOUringStillHandsBackEpollsEventsOrSaysWhyNot() throws {
        let loop = try Self.loop(busyPoll: false)
        let refusal = loop.startUring(connections: 4)
        // Either the rings are there, or the refusal says why; the loop works as before in both cases.
        #expect(refusal != nil || loop.receiver != nil)
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let connection = try loop.connect(to: address, token: 9, transmitStamps: false)
        var connected = false
        for _ in 0..<Self.patience where !connected {
            _ = try loop.wait(timeoutNanoseconds: 1_000_000_000) { token, events in
                if token == 9 && events.contains(.writable) { connected = true }
                return true
            }
        }
        #expect(connected)
        connection.close()
    }
}
