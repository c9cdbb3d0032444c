import BenchNet
import Foundation
import Glibc

/// A Python server of Tests/Fixtures that picks a free port and writes it to the file named by its first argument:
/// started, and its port read (a bound only a hang reaches). The caller kills it (SIGKILL: a child of the test process
/// inherits its blocked signals, SIGTERM among them).
enum PortFileFixture {
    static func start(_ script: String, _ arguments: [String]) throws -> (Process, Int) {
        let portFile = NSTemporaryDirectory() + "bench-fixture-\(UUID().uuidString)"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [TargetServerTests.fixtures + "/" + script, portFile] + arguments
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: portFile) && server.isRunning && Date() < deadline { usleep(20_000) }
        guard let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
            throw SystemError("\(script) did not start", errno: ETIMEDOUT)
        }
        return (server, port)
    }
}
