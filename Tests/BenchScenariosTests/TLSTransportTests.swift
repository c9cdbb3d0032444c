@testable import BenchClients
import BenchCore
import BenchNet
import BenchReports
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// The TLS transports (`--transport tls` and `wss`) end to end: the run's own server and clients over the system's
/// OpenSSL 3, a certificate made by the `openssl` command, `openssl s_client` as a stray TLS peer, a pin that does not
/// match, and bench's TLS clients against stunnel, a TLS server nobody here wrote.
@Suite(.enabled(if: TLSTools.openSSLLoads, "OpenSSL 3 cannot be loaded: apt-get install -y libssl3"), .timeLimit(.minutes(10)))
struct TLSTransportTests {
    static let opensslPath = TLSTools.opensslPath
    static let stunnelPath = TLSTools.stunnelPath
    static let hasOpenSSLTool = TLSTools.hasOpenSSLTool
    static let hasStunnel = TLSTools.hasStunnel

    // MARK: The run's own clients

    @Test func aFanoutRunOverTLSDeliversEveryBroadcastAndTheSamplesRecompute() throws {
        let configuration = Self.configuration(.tls, .fanout, clients: 10, messages: 30)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.connectTimes.count == 10)
        #expect(recording.connectTimes.allSatisfy { $0 > 0 }, "a handshake for every client: \(recording.connectTimes)")
        #expect(!recording.tlsCertificateFingerprint.isEmpty)
        #expect(Self.looksLikeFingerprint(recording.tlsCertificateFingerprint), "\(recording.tlsCertificateFingerprint)")

        let files = try RunFiles.write(recording)
        #expect(files.settings["status"] == "complete")
        #expect(files.settings["transport"] == "tls")
        #expect(files.settings["tls_certificate_sha256"] == recording.tlsCertificateFingerprint)
        #expect(files.events.isEmpty)
        #expect(files.samples.count == 10 * 30)
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            let t0 = try #require(row.int("t0_ns")), write = try #require(row.int("write_ns"))
            let received = try #require(row.int("recv_ns")), echo = try #require(row.int("echo_ns"))
            #expect(t0 <= write && write <= received && received <= echo, "\(row)")
            #expect(row.int("delivery_ns") == received - t0)
            #expect(row.int("rtt_ns") == echo - write)
        }
        let byBroadcast = Dictionary(grouping: files.samples) { $0.int("broadcast")! }
        #expect(byBroadcast.keys.sorted() == Array(0..<30))
        for (_, rows) in byBroadcast {
            #expect(rows.map { $0.int("client")! }.sorted() == Array(0..<10), "each client once per broadcast")
        }
        let deliveries = files.samples.map { $0.int("delivery_ns")! }.sorted()
        let summary = try #require(files.summary["delivery"])
        #expect(summary.int("count") == 10 * 30)
        #expect(summary.int("lost") == 0)
        #expect(summary.double("p50_us") == Double(exactPercentile(deliveries, 50)) / 1000)
    }

    @Test func aRoundtripRunOverSecureWebSocketEchoesEveryMessage() throws {
        let configuration = Self.configuration(.wss, .roundtrip, clients: 3, messages: 30)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.connectTimes.count == 3 && recording.connectTimes.allSatisfy { $0 > 0 })
        #expect(Self.looksLikeFingerprint(recording.tlsCertificateFingerprint), "\(recording.tlsCertificateFingerprint)")

        let files = try RunFiles.write(recording)
        #expect(files.settings["transport"] == "wss")
        #expect(files.events.isEmpty)
        #expect(files.samples.count == 3 * 30)
        for client in 0..<3 {
            let rows = files.samples.filter { $0.int("client") == client }
            #expect(rows.map { $0.int("seq")! } == Array(0..<30))
        }
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            #expect(row.int("rtt_ns") == row.int("echo_ns")! - row.int("sent_ns")!)
        }
        let rtts = files.samples.map { $0.int("rtt_ns")! }.sorted()
        let summary = try #require(files.summary["rtt"])
        #expect(summary.int("count") == 90)
        #expect(summary.int("lost") == 0)
        #expect(summary.double("p99_us") == Double(exactPercentile(rtts, 99)) / 1000)
    }

    // MARK: Certificates made by the openssl command

    @Test(.enabled(if: hasOpenSSLTool, "the openssl command is not installed: apt-get install -y openssl"))
    func aCertificateAndKeyFromOpenSSLAreTheOnesTheRunPresents() throws {
        let folder = try TemporaryFolder()
        let pair = try folder.makeCertificate(named: "bench-test")
        var configuration = Self.configuration(.tls, .fanout, clients: 3, messages: 20)
        configuration.tlsCertificatePath = pair.certificate
        configuration.tlsKeyPath = pair.key
        let recording = try ScenarioRunner.run(configuration, control: RunControl())

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed })
        let expected = try folder.fingerprint(of: pair.certificate)
        #expect(recording.tlsCertificateFingerprint == expected)
        let files = try RunFiles.write(recording)
        #expect(files.settings["tls_certificate_sha256"] == expected)
    }

    @Test(.enabled(if: hasOpenSSLTool, "the openssl command is not installed: apt-get install -y openssl"))
    func opensslSClientCompletesAHandshakeAndSeesTheRunsCertificate() throws {
        let folder = try TemporaryFolder()
        let pair = try folder.makeCertificate(named: "bench-test")
        var configuration = Self.configuration(.tls, .fanout, clients: 3, messages: 20)
        configuration.tlsCertificatePath = pair.certificate
        configuration.tlsKeyPath = pair.key
        configuration.localClientRange = 0..<2  // the run waits for client 2, which comes after s_client
        let run = try BackgroundRun(configuration)
        var lastClient: NativeThread<[ClientReport]>?
        defer {
            // Whatever happened, nothing is left running: the outside client is woken and joined.
            run.control.clientsWake.notify()
            _ = lastClient?.join()
        }
        let port = try run.port()

        // A stray TLS connection that never says hello: s_client handshakes, prints, and closes (stdin is empty).
        let sClient = try folder.run(
            Self.opensslPath,
            ["s_client", "-connect", "127.0.0.1:\(port)", "-showcerts", "-no_ign_eof"], name: "s_client")
        #expect(sClient.status == 0, "\(sClient.errors)")
        let protocols = sClient.output.split(separator: "\n")
            .filter { $0.contains("Protocol  :") || $0.hasPrefix("New, ") }
        #expect(!protocols.isEmpty, "\(sClient.output)")
        #expect(
            protocols.allSatisfy { $0.contains("TLSv1.3") || $0.contains("TLSv1.2") }, "\(protocols)")
        let shown = Self.pemBlocks(sClient.output)
        #expect(shown.count == 1, "one certificate, no chain: \(sClient.output)")
        let own = Self.pemBlocks(try String(contentsOfFile: pair.certificate, encoding: .utf8))
        #expect(shown.first == own.first, "s_client shows the certificate of --tls-cert")
        // And through the openssl command's own fingerprint of what s_client printed.
        if let first = shown.first {
            let seen = folder.path + "/seen.pem"
            try (first + "\n").write(toFile: seen, atomically: true, encoding: .utf8)
            #expect(try folder.fingerprint(of: seen) == folder.fingerprint(of: pair.certificate))
        }

        // The run goes on: client 2, one of bench's TLS clients from outside the run, pinning c.pem.
        let control = run.control
        lastClient = try TLSTools.spawnClients(
            configuration, ids: 2..<3, port: port, pinnedPath: pair.certificate, control: control)
        let recording = try run.finish()

        #expect(recording.status == .complete)
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed })
        #expect(recording.tlsCertificateFingerprint == (try folder.fingerprint(of: pair.certificate)))
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.count <= 1, "at most the stray s_client connection: \(reasons)")
        #expect(recording.connectionEvents.allSatisfy { $0.client == nil }, "\(reasons)")
        control.clientsWake.notify()
        let connects = try #require(lastClient).join().filter { $0.what == .subscribed }
        lastClient = nil
        #expect(connects.map(\.client) == [2])
        #expect(connects.allSatisfy { $0.time > 0 })
    }

    @Test(.enabled(if: hasOpenSSLTool, "the openssl command is not installed: apt-get install -y openssl"))
    func clientsPinningAnotherCertificateRefuseTheServer() throws {
        let folder = try TemporaryFolder()
        let other = try folder.makeCertificate(named: "someone-else")
        var configuration = Self.configuration(.tls, .fanout, clients: 2, messages: 10)
        configuration.tlsTrust = .pin(path: other.certificate)  // the server presents its ephemeral certificate
        configuration.setupTimeout = 60_000_000_000  // far beyond the bound below: waiting it out fails the test
        let started = MonotonicClock.now()
        #expect {
            _ = try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            guard let error = error as? RunError else { return false }
            return "\(error)".contains("not the pinned one")
        }
        #expect(MonotonicClock.now() - started < 30_000_000_000, "refused at once, not at the 60 s setup timeout")

        // Same with --tls-cert: a certificate from the openssl command, the clients pinning another one.
        let served = try folder.makeCertificate(named: "bench-test")
        configuration.tlsCertificatePath = served.certificate
        configuration.tlsKeyPath = served.key
        do {
            _ = try ScenarioRunner.run(configuration, control: RunControl())
            Issue.record("the run completed although its clients pin another certificate")
        } catch {
            #expect(error is RunError, "\(type(of: error))")
            #expect("\(error)".contains("not the pinned one"), "\(error)")
            #expect("\(error)".contains(try folder.fingerprint(of: other.certificate)), "names the pin: \(error)")
        }
    }

    // MARK: Interop: stunnel

    @Test(.enabled(if: hasOpenSSLTool && hasStunnel, "stunnel is not installed: apt-get install -y stunnel4"))
    func benchsTLSClientsEchoThroughStunnel() throws {
        let folder = try TemporaryFolder()
        let pair = try folder.makeCertificate(named: "bench-test")
        var configuration = Self.configuration(.tcp, .fanout, clients: 3, messages: 30)
        configuration.localClientRange = 0..<0  // all three come through stunnel
        configuration.timestamps = .user  // stunnel re-sends the bytes: kernel stamps would be stunnel's
        let run = try BackgroundRun(configuration)
        var clientsThread: NativeThread<[ClientReport]>?
        defer {
            run.control.clientsWake.notify()
            _ = clientsThread?.join()
        }
        let runPort = try run.port()
        let stunnelPort = try Self.freePort()

        let config = folder.path + "/stunnel.conf"
        try """
            foreground = yes
            pid =
            debug = 4
            [bench]
            accept = 127.0.0.1:\(stunnelPort)
            connect = 127.0.0.1:\(runPort)
            cert = \(pair.certificate)
            key = \(pair.key)

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let stunnel = try folder.start(Self.stunnelPath, [config], name: "stunnel")
        defer { stunnel.stop() }
        var listening = false
        for _ in 0..<1_000 {  // up to 10 s
            if Self.isListening(port: stunnelPort) { listening = true; break }
            if !stunnel.process.isRunning { break }
            usleep(10_000)
        }
        try #require(listening, "stunnel listens on \(stunnelPort): \(stunnel.errors())")

        clientsThread = try TLSTools.spawnClients(
            configuration, ids: 0..<3, port: stunnelPort, pinnedPath: pair.certificate, control: run.control)
        let recording = try run.finish()
        run.control.clientsWake.notify()
        let connects = try #require(clientsThread).join().filter { $0.what == .subscribed }
        clientsThread = nil

        #expect(recording.status == .complete, "\(recording.statusReason) \(stunnel.errors())")
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed })
        #expect(connects.count == 3)
        #expect(connects.map(\.client).sorted() == [0, 1, 2])
        #expect(connects.allSatisfy { $0.time > 0 })
        let files = try RunFiles.write(recording)
        #expect(files.samples.count == 3 * 30)
        #expect(files.summary["delivery"]?.int("lost") == 0)
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            let t0 = try #require(row.int("t0_ns")), received = try #require(row.int("recv_ns"))
            #expect(row.int("delivery_ns") == received - t0)
        }
    }

    // MARK: Helpers

    /// A small run: fixed gaps of 3 ms, no warmup, no heartbeats, every wait bounded.
    static func configuration(
        _ transport: TransportKind, _ scenario: Scenario, clients: Int, messages: Int
    ) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: scenario, seed: 73)
        configuration.transport = transport
        configuration.clients = clients
        configuration.messages = messages
        configuration.warmup = 0
        configuration.interval = 3_000_000
        configuration.arrival = .fixed
        configuration.timeout = 2_000_000_000
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        configuration.setupTimeout = 15_000_000_000
        return configuration
    }

    /// 32 bytes as `openssl x509 -fingerprint` prints them: AB:CD:…, upper-case hex.
    static func looksLikeFingerprint(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 32 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } }
    }

    /// The PEM certificates in `text`, each from its BEGIN line to its END line.
    static func pemBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line == "-----BEGIN CERTIFICATE-----" { current = [] }
            current?.append(line)
            if line == "-----END CERTIFICATE-----", let lines = current {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            }
        }
        return blocks
    }

    /// A port nothing listens on now: bound to port 0, read, closed.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", errno: errno) }
        defer { Posix.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { throw SystemError("bind", errno: errno) }
        return try SocketAddress(boundTo: fd).port
    }

    /// True when a socket listens on 127.0.0.1:`port` (read from /proc/net/tcp, so nothing connects to find out).
    static func isListening(port: UInt16) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let local = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }
    }
}

/// What the TLS tests need from the system.
enum TLSTools {
    static let openSSLLoads = (try? OpenSSL.load()) != nil
    static let opensslPath = "/usr/bin/openssl"
    static let stunnelPath = "/usr/bin/stunnel4"
    static let hasOpenSSLTool = FileManager.default.isExecutableFile(atPath: opensslPath)
    static let hasStunnel = FileManager.default.isExecutableFile(atPath: stunnelPath)

    /// Bench's TLS clients `ids` of the run `configuration`, on a thread of their own, against `port` on loopback,
    /// pinning the certificate in the PEM file `pinnedPath`.
    static func spawnClients(
        _ configuration: RunConfiguration, ids: Range<Int>, port: UInt16, pinnedPath: String, control: RunControl
    ) throws -> NativeThread<[ClientReport]> {
        let pinned = try TLSCertificate(pem: Array(try Data(contentsOf: URL(fileURLWithPath: pinnedPath))))
        let settings = TransportSettings(
            maximumFrameSize: max(configuration.payload, WireFormat.minimumMessageSize),
            tls: try TLSContext(pinning: pinned))
        let address = try #require(SocketAddress(host: "127.0.0.1", port: port))
        return try NativeThread.spawn(name: "test-clients") {
            let reports = ReportWriter()
            do {
                _ = try EchoClients<TLS>(
                    configuration, ids: ids, routes: ClientRoutes(server: address), transport: settings, control: control,
                    kernelClock: nil, reports: reports
                ).run()
            } catch {
                control.failSetup("the test's clients could not start: \(error)")
            }
            return ClientReport.all(in: reports.collected)
        }
    }
}

/// A fresh temporary folder, removed when the last reference goes; runs the test's external commands with their
/// output in files there (no pipe to fill up) and every wait bounded.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "bench-tls-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A started process whose output goes to files in the folder.
    struct Started {
        let process: Process
        let outputPath: String
        let errorPath: String

        func output() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        func errors() -> String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

        /// Waits up to `seconds` for the process to exit; false if it was still running (it is killed then).
        @discardableResult
        func wait(seconds: Int) -> Bool {
            for _ in 0..<seconds * 100 where process.isRunning { usleep(10_000) }
            guard process.isRunning else { return true }
            stop()
            return false
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            for _ in 0..<300 where process.isRunning { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Starts `executable` with `arguments`, stdin empty, its output in `name`.out and `name`.err.
    func start(_ executable: String, _ arguments: [String], name: String) throws -> Started {
        let outputPath = path + "/\(name).out", errorPath = path + "/\(name).err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: path)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
        return Started(process: process, outputPath: outputPath, errorPath: errorPath)
    }

    /// Runs `executable` to its end (killed after `seconds`).
    func run(
        _ executable: String, _ arguments: [String], name: String, seconds: Int = 20
    ) throws -> (status: Int32, output: String, errors: String) {
        let started = try start(executable, arguments, name: name)
        let exited = started.wait(seconds: seconds)
        let errors = started.errors() + (exited ? "" : "\n(killed after \(seconds) s)")
        return (exited ? started.process.terminationStatus : -1, started.output(), errors)
    }

    /// A P-256 key and a self-signed certificate named `commonName`, made by the openssl command.
    func makeCertificate(named commonName: String) throws -> (certificate: String, key: String) {
        let certificate = path + "/\(commonName).crt.pem", key = path + "/\(commonName).key.pem"
        let result = try run(
            TLSTransportTests.opensslPath,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=\(commonName)", "-keyout", key, "-out", certificate,
            ], name: "req-\(commonName)")
        try #require(result.status == 0, "openssl req: \(result.errors)")
        return (certificate, key)
    }

    /// The SHA-256 fingerprint the openssl command prints for the certificate at `certificate` (after `=`).
    func fingerprint(of certificate: String) throws -> String {
        let result = try run(
            TLSTransportTests.opensslPath, ["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256"],
            name: "fingerprint-\(UUID().uuidString)")
        try #require(result.status == 0, "openssl x509: \(result.errors)")
        let line = try #require(
            result.output.split(separator: "\n").first { $0.lowercased().hasPrefix("sha256 fingerprint=") },
            "\(result.output)")
        return String(line[line.index(after: line.firstIndex(of: "=")!)...]).trimmingCharacters(in: .whitespaces)
    }
}
