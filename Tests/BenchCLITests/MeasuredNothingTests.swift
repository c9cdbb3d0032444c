import BenchNet
import Foundation
import Glibc
import Synchronization
import Testing

/// A run that measured nothing is no result (issue 42): it fails with its likely cause, exit 3; a timed run's default
/// warmup cannot eat the whole run, and a warmup given that would is refused before anything runs.
@Suite(.timeLimit(.minutes(10))) struct MeasuredNothingTests {
    /// On the old code this run printed "complete" and exited 0 with every delivery lost.
    @Test func aRunInWhichNoSubscriberReceivedAnythingFailsAndSaysWhy() throws {
        let server = try SilentServer()
        defer { server.stop() }
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--target", "tcp://127.0.0.1:\(server.port)", "--framing", "line", "--subscribe", "JOIN",
            "--clients", "2", "--messages", "3", "--interval", "20ms", "--warmup", "0", "--timeout", "300ms",
            "--out", out,
        ])
        #expect(result.exitCode == 3, "\(result.standardError)")
        #expect(result.standardError.contains("Error: the run failed: nothing was measured"), "\(result.standardError)")
        #expect(result.standardError.contains("check --subscribe"), "\(result.standardError)")
        let folder = out + "/" + (try #require(contents(of: out)?.first { $0.hasPrefix("fanout-") }))
        let settings = try csvRows(folder + "/run.csv")
        #expect(settings.first { $0["key"] == "status" }?["value"] == "failed")
        let events = try String(contentsOfFile: folder + "/events.csv", encoding: .utf8)
        #expect(events.contains("run,") && events.contains("no subscriber received a marker"), "\(events)")
        let summary = try String(contentsOfFile: folder + "/summary.md", encoding: .utf8)
        #expect(summary.contains(": failed") && summary.contains("no subscriber received a marker"), "\(summary)")
    }

    /// `--duration 2s --interval 200ms`: the default warmup of 10 would take the whole run; bounded to a tenth.
    @Test func aTimedRunsDefaultWarmupTakesAtMostATenthOfIt() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "2", "--duration", "2s", "--interval", "200ms", "--arrival", "fixed", "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = out + "/" + (try #require(contents(of: out)?.first { $0.hasPrefix("fanout-") }))
        let settings = try csvRows(folder + "/run.csv")
        #expect(settings.first { $0["key"] == "warmup" }?["value"] == "1")
        let measured = settings.first { $0["key"] == "messages_measured" }?["value"].flatMap { Int($0) } ?? 0
        #expect(measured > 0)
    }

    @Test func aWarmupGivenThatWouldTakeMostOfATimedRunIsRefused() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "2", "--duration", "2s", "--interval", "200ms", "--warmup", "6", "--out", out,
        ])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("--warmup") && result.standardError.contains("at most half"))
        #expect(contents(of: out) == nil, "a usage error writes nothing")
    }
}

/// A TCP server on 127.0.0.1 that takes every connection and reads what it is sent, and never writes: a server to
/// which a run's messages go and from which nothing comes back. It stops by itself after a minute.
final class SilentServer: Sendable {
    let port: UInt16
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        port = address.port
        let giveUp = MonotonicClock.now() + 60_000_000_000
        let thread = Thread { [self] in
            var sockets: [Int32] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stopped.load(ordering: .relaxed) && MonotonicClock.now() < giveUp {
                if let socket = try? TCPSocket.accept(from: listener) { sockets.append(socket.relinquish()) }
                for socket in sockets { _ = buffer.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) } }
                usleep(2_000)
            }
            for socket in sockets { Posix.close(socket) }
            Posix.close(listener)
            done.signal()
        }
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
    }
}
