@testable import BenchClients
import BenchCore
import BenchNet

@testable import BenchScenarios

/// Runs `configuration` streaming to a queue that a thread of the test drains; the recording and every entry.
func streamedRun(_ configuration: RunConfiguration) throws -> (RunRecording, [SettledMessage]) {
    let queue = try SettledQueue()
    let consumer = try NativeThread.spawn(name: "test-consumer") { () -> [SettledMessage] in
        var entries: [SettledMessage] = []
        let deadline = MonotonicClock.now() + 60_000_000_000
        while entries.last?.kind != .end && MonotonicClock.now() < deadline {
            if let entry = queue.pop() { entries.append(entry) } else { Posix.sleep(nanoseconds: 1_000_000) }
        }
        return entries
    }
    let recording: RunRecording
    do {
        recording = try ScenarioRunner.run(configuration, control: RunControl(), stream: queue)
    } catch {
        _ = consumer.join()
        throw error
    }
    return (recording, consumer.join())
}

/// A fanout of one client, without heartbeats, that reconnects after a drop every `wait` (no doubling), `tries` times:
/// for ``startEchoClients(_:ids:address:control:)`` against a test's own listener.
func oneReconnectingClient(every wait: UInt64, tries: Int) -> RunConfiguration {
    var configuration = RunConfiguration(scenario: .fanout, seed: 1)
    configuration.clients = 1
    configuration.heartbeat = 0
    configuration.reconnect = ReconnectBackoff(base: wait, maximum: wait, tries: tries)
    return configuration
}

/// The clients `ids` of `configuration` on a thread of their own, connecting to `address` (a test's own listener);
/// their tally once they end (nil if they could not start).
func startEchoClients(
    _ configuration: RunConfiguration, ids: Range<Int> = 0..<1, address: SocketAddress, control: RunControl
) throws -> NativeThread<ClientThreadsTally?> {
    try NativeThread.spawn(name: "test-clients") { () -> ClientThreadsTally? in
        let settings = TransportSettings(maximumFrameSize: 64, webSocketPath: "/", webSocketHost: "test")
        let reports = ReportWriter()
        let clients = try? EchoClients<TCP>(
            configuration, ids: ids, routes: ClientRoutes(server: address), transport: settings, control: control,
            kernelClock: nil, reports: reports)
        return clients?.run().tally
    }
}
