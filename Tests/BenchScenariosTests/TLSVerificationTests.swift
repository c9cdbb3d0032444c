@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// TLS clients verify as TLS clients do: the server's chain up to an authority (`--tls-ca`, or the system's store for
/// a target) and its name; `--tls-pin` accepts exactly one certificate, `--tls-insecure` anything. A certificate
/// authority and certificates made by the openssl command: one for localhost and 127.0.0.1, one for another name, one
/// expired. Against the built-in server and mosquitto's TLS listener.
@Suite(.timeLimit(.minutes(10))) struct TLSVerificationTests {
    static let openSSL = TLSTools.openSSLLoads && TLSTools.hasOpenSSLTool

    /// A certificate authority, and certificates it signed, in a folder of their own.
    struct Authority {
        let folder: TemporaryFolder
        let certificate: String

        init(named name: String) throws {
            folder = try TemporaryFolder()
            certificate = folder.path + "/\(name).pem"
            let made = try folder.run(TLSTransportTests.opensslPath, [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=\(name)", "-keyout", folder.path + "/\(name).key", "-out", certificate,
            ], name: "ca-\(name)")
            try #require(made.status == 0, "openssl req: \(made.errors)")
        }

        /// A key and a certificate for `names` (`DNS:localhost,IP:127.0.0.1`) signed by this authority, valid `days`
        /// (0: it expires the second it is made).
        func issue(_ file: String, names: String, days: Int = 1) throws -> (certificate: String, key: String) {
            let key = folder.path + "/\(file).key", request = folder.path + "/\(file).csr"
            let certificate = folder.path + "/\(file).pem", extensions = folder.path + "/\(file).ext"
            try "subjectAltName=\(names)\n".write(toFile: extensions, atomically: true, encoding: .utf8)
            let asked = try folder.run(TLSTransportTests.opensslPath, [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=\(file)",
                "-keyout", key, "-out", request,
            ], name: "req-\(file)")
            try #require(asked.status == 0, "openssl req: \(asked.errors)")
            let signed = try folder.run(TLSTransportTests.opensslPath, [
                "x509", "-req", "-in", request, "-CA", self.certificate, "-CAkey", self.certificate.dropLast(4) + ".key",
                "-CAcreateserial", "-days", "\(days)", "-extfile", extensions, "-out", certificate,
            ], name: "x509-\(file)")
            try #require(signed.status == 0, "openssl x509: \(signed.errors)")
            return (certificate, key)
        }
    }

    /// A roundtrip of the built-in server over TLS presenting `served`, its clients trusting as `trust` says.
    static func run(serving served: (certificate: String, key: String), trust: TLSTrustOption?, host: String = "127.0.0.1")
        throws -> RunRecording
    {
        var configuration = TLSTransportTests.configuration(.tls, .roundtrip, clients: 2, messages: 5)
        configuration.host = host
        configuration.tlsCertificatePath = served.certificate
        configuration.tlsKeyPath = served.key
        configuration.tlsTrust = trust
        return try ScenarioRunner.run(configuration, control: RunControl())
    }

    /// The error a run that should be refused ends with (a hang reaches the test's time limit, not the setup timeout).
    static func refusal(serving served: (certificate: String, key: String), trust: TLSTrustOption?, host: String = "127.0.0.1")
        -> String
    {
        do {
            let recording = try run(serving: served, trust: trust, host: host)
            return "not refused: \(recording.status)"
        } catch {
            return "\(error)"
        }
    }

    @Test(.enabled(if: openSSL, "OpenSSL 3 is not installed: apt-get install -y openssl libssl3"))
    func aCertificateSignedByTheGivenAuthorityForTheNameConnectedToIsAccepted() throws {
        let authority = try Authority(named: "bench-test-ca")
        let served = try authority.issue("localhost", names: "DNS:localhost,IP:127.0.0.1")
        for host in ["127.0.0.1", "localhost"] {
            let recording = try Self.run(serving: served, trust: .authorities(path: authority.certificate), host: host)
            #expect(recording.status == .complete && recording.ledger.outcome.allSatisfy { $0 == .echoed }, "\(host)")
        }
        // Pinned, or not checked at all, the same certificate is accepted too.
        for trust in [TLSTrustOption.pin(path: served.certificate), .insecure] {
            let recording = try Self.run(serving: served, trust: trust)
            #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "\(trust)")
        }
    }

    @Test(.enabled(if: openSSL, "OpenSSL 3 is not installed: apt-get install -y openssl libssl3"))
    func refusalsNameTheReason() throws {
        let authority = try Authority(named: "bench-test-ca")
        let other = try authority.issue("other", names: "DNS:other.example")
        let mismatch = Self.refusal(serving: other, trust: .authorities(path: authority.certificate))
        #expect(mismatch.contains("name mismatch: the server's certificate is for other.example, not 127.0.0.1"), "\(mismatch)")
        #expect(mismatch.contains("bench refused the server's certificate: name mismatch"), "who refused: \(mismatch)")
        #expect(mismatch.contains("(trusted: --tls-ca \(authority.certificate))"), "\(mismatch)")

        let expired = try authority.issue("expired", names: "IP:127.0.0.1", days: 0)
        usleep(1_100_000)  // its last valid second is over
        let late = Self.refusal(serving: expired, trust: .authorities(path: authority.certificate))
        #expect(late.contains("expired: the certificate of /CN=expired expired on "), "\(late)")

        let stranger = try Authority(named: "someone-elses-ca")
        let unknown = Self.refusal(
            serving: try stranger.issue("localhost", names: "IP:127.0.0.1"), trust: .authorities(path: authority.certificate))
        #expect(unknown.contains("unknown issuer: the certificate of /CN=localhost is issued by /CN=someone-elses-ca"), "\(unknown)")

        let pinned = Self.refusal(serving: other, trust: .pin(path: try authority.issue("x", names: "DNS:x").certificate))
        #expect(pinned.contains("not the pinned one"), "\(pinned)")
    }

    /// mosquitto's TLS listener with a certificate the test's authority signed: fanout and roundtrip verified by its
    /// name; the system's store (the default for a target) does not know the authority, and says so.
    @Test(.enabled(if: openSSL && MQTTInteropTests.hasMosquitto, "mosquitto or OpenSSL 3 is not installed: apt-get install -y mosquitto openssl libssl3"))
    func anMQTTBrokerWithACertificateFromAnAuthorityIsVerified() throws {
        let authority = try Authority(named: "bench-test-ca")
        let served = try authority.issue("broker", names: "DNS:localhost,IP:127.0.0.1")
        for (path, mode) in [(authority.folder.path, 0o755), (served.certificate, 0o644), (served.key, 0o644)] {
            chmod(path, mode_t(mode))  // mosquitto started as root reads its files as the user mosquitto
        }
        let server = try ExternalServer.start(name: "mosquitto-ca") { port in
            let configuration = authority.folder.path + "/mosquitto-\(port).conf"
            try? "listener \(port) 127.0.0.1\ncertfile \(served.certificate)\nkeyfile \(served.key)\nallow_anonymous true\n"
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            return (MQTTInteropTests.mosquitto, ["-c", configuration])
        }
        defer { server.stop() }
        let target = "mqtts://localhost:\(server.port)/prices"
        var fanout = try TargetServerTests.fanout(target, subscribers: 10, broadcasts: 10)
        fanout.tlsTrust = .authorities(path: authority.certificate)
        try TargetServerTests.expectEveryBroadcastDelivered(try ScenarioRunner.run(fanout, control: RunControl()), target: target)
        var roundtrip = try TargetServerTests.roundtrip(target, clients: 4, messages: 10)
        roundtrip.tlsTrust = .authorities(path: authority.certificate)
        _ = try TargetServerTests.expectEveryMessageEchoed(try ScenarioRunner.run(roundtrip, control: RunControl()), target: target)

        fanout.tlsTrust = nil
        do {
            let recording = try ScenarioRunner.run(fanout, control: RunControl())
            Issue.record("the system's store trusted the test's authority: \(recording.status)")
        } catch {
            #expect("\(error)".contains("unknown issuer") && "\(error)".contains("(trusted: the system's store)"), "\(error)")
        }
    }
}
