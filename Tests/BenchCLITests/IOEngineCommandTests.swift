import Foundation
import Glibc
import Testing

@testable import BenchNet

/// `--io`: the engine a run uses, said in run.csv; what it refuses. Runs that need io_uring are skipped, with a
/// notice, where the kernel refuses it.
@Suite(.timeLimit(.minutes(10))) struct IOEngineCommandTests {
    static let uringAvailable: Bool = {
        do {
            try IOEngine.probe()
            return true
        } catch {
            print("notice: io_uring is not available here (\(error)); the runs that need it are skipped")
            return false
        }
    }()

    private func setting(_ key: String, in folder: String) throws -> String? {
        try String(contentsOfFile: folder + "/run.csv", encoding: .utf8).split(separator: "\r\n")
            .map { $0.split(separator: ",", maxSplits: 1).map(String.init) }
            .first { $0.first == key }?.last
    }

    /// A fan-out and a roundtrip over io_uring, with kernel stamps (the ring's receives carry them): every message
    /// arrives, every delivery is stamped by the kernel, and run.csv says io_uring ran.
    @Test(.enabled(if: uringAvailable), arguments: ["tcp", "ws"])
    func runsOverIOUringMeasureEveryMessageWithKernelStamps(transport: String) throws {
        for scenario in [["fanout", "--clients", "6", "--messages", "30"], ["roundtrip", "--clients", "4", "--count", "30"]] {
            let out = temporaryFolderPath()
            let result = try BenchProcess.run(
                scenario + ["--interval", "2ms", "--transport", transport, "--timestamps", "kernel", "--io", "uring",
                    "--json", "--out", out])
            #expect(result.exitCode == 0, "stderr: \(result.standardError)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let folder = try #require(json["run_folder"] as? String)
            #expect(try setting("io_engine", in: folder) == "uring")
            #expect(try setting("status", in: folder) == "complete")
            let metrics = try #require(json["metrics"] as? [[String: Any]])
            let rtt = try #require(metrics.first { $0["metric"] as? String == "rtt" })
            #expect(rtt["count"] as? Int == (scenario[0] == "fanout" ? 180 : 120) && rtt["lost"] as? Int == 0)
            #expect(try setting("kernel_receive_stamps_missing", in: folder) == "0")
            #expect(try setting("kernel_send_stamps_missing", in: folder) == "0")
        }
    }

    /// auto picks io_uring for a run of a thousand clients or more, where it measured cheaper per message than epoll
    /// (Benchmarks/cpu-per-message.sh), and says nothing of it.
    @Test(.enabled(if: uringAvailable)) func autoIsIOUringFromAThousandClients() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(
            ["fanout", "--clients", "1000", "--messages", "3", "--warmup", "1", "--interval", "20ms", "--json", "--out", out],
            environment: ["BENCH_IO": "auto"])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(!result.standardError.contains("Note:"), "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(try setting("io_engine", in: try #require(json["run_folder"] as? String)) == "uring")
    }

    /// epoll is what auto picks for a few clients, and what `--io epoll` asks.
    @Test func epollIsTheDefaultAndSaidInRunCSV() throws {
        for arguments in [[], ["--io", "epoll"]] {
            let out = temporaryFolderPath()
            let result = try BenchProcess.run(
                ["fanout", "--clients", "3", "--messages", "10", "--interval", "1ms", "--json", "--out", out] + arguments,
                environment: ["BENCH_IO": "auto"])
            #expect(result.exitCode == 0, "stderr: \(result.standardError)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(try setting("io_engine", in: try #require(json["run_folder"] as? String)) == "epoll")
        }
    }

    /// An engine that does not exist is a usage error that writes nothing, in every scenario and with a target.
    @Test func anUnknownEngineIsRefused() throws {
        let cases: [([String], String)] = [
            (["fanout", "--io", "kqueue"], "expected uring, epoll or auto"),
            (["fanout", "--target", "ws://127.0.0.1:9/x", "--io", "select"], "expected uring, epoll or auto"),
            (["chat", "--io", "poll"], "expected uring, epoll or auto"),
        ]
        for (arguments, message) in cases {
            let out = temporaryFolderPath()
            let result = try BenchProcess.run(arguments + ["--out", out])
            #expect(result.exitCode == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(contents(of: out) == nil || contents(of: out) == [], "nothing written")
        }
    }
}
