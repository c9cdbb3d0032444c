import Foundation
import Glibc
import Testing

/// `docs/deploy/kubernetes/`: the manifests parse, and the command lines their containers run are the CLI's own: a
/// test runs exactly those (the token from the Secret, the Service's name resolved to this machine, the results volume
/// a temporary folder) as processes, one server and as many agents as the Job's parallelism.
/// Serialized: both runs listen where the manifests say (0.0.0.0:7000), so they cannot run at once.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KubernetesManifestTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/deploy/kubernetes").path

    private func text(_ name: String) throws -> String {
        try String(contentsOfFile: Self.folder + "/" + name, encoding: .utf8)
    }

    /// The `args:` of the manifest's container: a flow sequence, which is JSON.
    private func arguments(_ name: String) throws -> [String] {
        let line = try #require(try text(name).split(separator: "\n").first { $0.contains("args: [") })
        let json = line[line.firstIndex(of: "[")!...]
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String])
    }

    private func value(_ key: String, in name: String) throws -> String {
        let line = try #require(try text(name).split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + ":") })
        return line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
    }

    @Test(.enabled(if: (try? Process.run(URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", "import yaml"]))
        .map { $0.waitUntilExit(); return $0.terminationStatus == 0 } ?? false, "python3-yaml is not installed"))
    func theManifestsParse() throws {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        check.arguments = ["-c", """
            import sys, yaml
            kinds = [d["kind"] for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]
            print(" ".join(sorted(kinds)))
            """] + ["server.yaml", "clients-job.yaml", "secret.yaml", "target/server.yaml", "chat/server.yaml", "podmonitor.yaml"]
            .map { Self.folder + "/" + $0 }
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        check.waitUntilExit()
        let kinds = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(check.terminationStatus == 0)
        // target/server.yaml replaces server.yaml's Deployment, Service and volume under the same names.
        #expect(kinds.contains(
            "Deployment Deployment Deployment Job PersistentVolumeClaim PersistentVolumeClaim PersistentVolumeClaim PodMonitor "
                + "Secret Service Service Service"), "\(kinds)")
        #expect(try value("completionMode", in: "clients-job.yaml") == "Indexed")
    }

    /// The built-in server's run (`server.yaml`), a user's chat server's (`target/server.yaml`, the `chat` Service
    /// being the relay of Tests/Fixtures) and the built-in chat relay's (`chat/server.yaml`), each with the same agents'
    /// Job.
    @Test(
        .enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: ["server.yaml", "target/server.yaml", "chat/server.yaml"])
    func theContainersCommandLinesRunAsTheyStand(_ serverManifest: String) throws {
        let token = try value("token", in: "secret.yaml")
        let out = temporaryFolderPath()
        let (relay, chat) = try TargetCompositionTests.startRelay(delayMilliseconds: 0)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
        }
        func substituted(_ arguments: [String]) -> [String] {
            arguments.map {
                $0.replacingOccurrences(of: "$(BENCH_TOKEN)", with: token)
                    .replacingOccurrences(of: "bench-serve:", with: "127.0.0.1:")  // the Service, as cluster DNS resolves it
                    .replacingOccurrences(of: "chat:7001", with: "127.0.0.1:\(chat)")  // the user's chat Service
                    .replacingOccurrences(of: "/results", with: out)  // the results volume
                    .replacingOccurrences(of: "0.0.0.0:9464", with: "127.0.0.1:0")  // the metrics port, any free one here
            }
        }
        let serverArguments = substituted(try arguments(serverManifest))
        let clientArguments = substituted(try arguments("clients-job.yaml"))
        let agents = try #require(Int(try value("parallelism", in: "clients-job.yaml")))
        let serverClients = Int(serverArguments[serverArguments.firstIndex(of: "--clients")! + 1])!
        let agentClients = Int(clientArguments[clientArguments.firstIndex(of: "--clients")! + 1])!
        #expect(agents * agentClients == serverClients, "the Job's pods bring exactly the server's clients")

        let server = try BenchProcess.start(serverArguments)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: server.outputBase + ".err", encoding: .utf8)) ?? ""
            if text.contains("listening on") { break }
            usleep(20_000)
        }
        let pods = try (0..<agents).map { _ in try BenchProcess.start(clientArguments) }
        let served = try BenchProcess.finish(server, timeout: 120)
        #expect(served.exitCode == 0, "\(served.standardError)")
        for pod in pods {
            let result = try BenchProcess.finish(pod, timeout: 30)
            #expect(result.exitCode == 0, "\(result.standardError)")
        }
        let scenario = serverArguments[1]
        let folder = try #require(contents(of: out)?.first { $0.hasPrefix(scenario + "-") })
        let agentsCSV = try String(contentsOfFile: out + "/" + folder + "/agents.csv", encoding: .utf8)
        #expect(agentsCSV.split(separator: "\r\n").count == 1 + agents)
        let summary = try String(contentsOfFile: out + "/" + folder + "/summary.csv", encoding: .utf8)
        func option(_ name: String) -> Int { Int(serverArguments[serverArguments.firstIndex(of: name)! + 1])! }
        // Fanout: every broadcast to every client; chat: every member's messages to the 9 others of its room of 10.
        let deliveries = scenario == "chat"
            ? serverClients * option("--count") * (option("--room-size") - 1) : serverClients * option("--messages")
        #expect(summary.contains("\r\ndelivery,\(deliveries),0,"), "every message reached every client it was for")
    }
}
