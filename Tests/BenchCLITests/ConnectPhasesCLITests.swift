import Foundation
import Testing

/// The built-in server's clients' connect phases from the command line, with the server in two processes, and with
/// the clients in two processes of their own (agents): each process's clients' phases reach the run's one
/// connections.csv and its metrics.
@Suite(.timeLimit(.minutes(5))) struct ConnectPhasesCLITests {
    @Test func aShardedRunOverWebSocketHasEveryClientsPhases() throws {
        let result = try BenchProcess.run([
            "fanout", "--transport", "ws", "--clients", "6", "--server-procs", "2", "--messages", "5", "--interval", "20ms",
            "--quiet", "--out", temporaryFolderPath(),
        ])
        try expectEveryClientsPhases(result, clients: 6)
    }

    /// Client processes (`--client-procs`) are agents of the run's server: their clients' phases came whole before
    /// (connections.csv had no phase columns, and a threshold on `connect_ws` was refused).
    @Test func clientProcessesOverWebSocketReportEveryClientsPhases() throws {
        let result = try BenchProcess.run([
            "fanout", "--transport", "ws", "--clients", "6", "--client-procs", "2", "--messages", "5", "--interval", "20ms",
            "--threshold", "connect_ws.p99<60s", "--quiet", "--out", temporaryFolderPath(),
        ])
        try expectEveryClientsPhases(result, clients: 6)
    }

    /// A run over WebSocket that ended well: connections.csv has a row per client whose TCP and WebSocket phases add
    /// up to its connect, and summary.csv counts each phase once per client.
    private func expectEveryClientsPhases(_ result: BenchProcess, clients: Int) throws {
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let rows = try csvRows(folder + "/connections.csv")
        #expect(rows.count == clients)
        for row in rows {
            let (connect, tcp, ws) = (Int(row["connect_ns"] ?? ""), Int(row["connect_tcp_ns"] ?? ""), Int(row["connect_ws_ns"] ?? ""))
            #expect(connect != nil && tcp != nil && ws != nil && tcp! + ws! == connect!, "\(row)")
        }
        let summary = try csvRows(folder + "/summary.csv")
        for metric in ["connect_tcp", "connect_ws"] {
            #expect(
                summary.first { $0["metric"] == metric }?["count"] == "\(clients)",
                "\(metric): \(summary.map { $0["metric"] ?? "" })")
        }
    }
}
