import Foundation
import Testing

/// Bad command lines: a clear message and the usage on stderr, exit 2, nothing run and nothing written.
@Suite struct UsageErrorTests {
    @Test(arguments: [
        (["fanout", "--frobnicate"], "Error: Unknown option '--frobnicate'"),
        (["fanout", "--clients", "0"], "Error: The value '0' is invalid for '--clients <n>'"),
        (["fanout", "--clients", "many"], "Error: The value 'many' is invalid for '--clients <n>'"),
        (["fanout", "--clients"], "Error: Missing value for '--clients <n>'"),
        (["fanout", "--clients", "--quiet"], "Error: Missing value for '--clients <n>'"),
        (["fanout", "--interval", "10"], "Error: The value '10' is invalid for '--interval <duration>': missing unit"),
        (["fanout", "--interval", "10m"], "Error: The value '10m' is invalid for '--interval <duration>'"),
        (["fanout", "--under", "0"], "Error: The value '0' is invalid for '--under <duration>': must be more than 0"),
        (["fanout", "--payload", "16"], "Error: The value '16' is invalid for '--payload <bytes>'"),
        (["fanout", "--payload", "64,1KB"], "Error: The value '64,1KB' is invalid for '--payload <bytes>'"),
        (["fanout", "--arrival", "bursty"], "Error: The value 'bursty' is invalid for '--arrival <kind>'"),
        (["fanout", "--pin", "0"], "Error: The value '0' is invalid for '--pin <server-cpu,client-cpu>'"),
        (["fanout", "--pin", "0,4096"], "CPU 4096 is not available"),
        (["fanout", "--host", "example.com"], "Error: The value 'example.com' is invalid for '--host <address>'"),
        (["fanout", "--port", "70000"], "Error: The value '70000' is invalid for '--port <port>'"),
        (["fanout", "--seed", "-1"], "Error: The value '-1' is invalid for '--seed <s>'"),
        // Values past what the arithmetic on them can hold: refused with the limit named, never a trap.
        (["fanout", "--heartbeat", "7000000000s"], "'--heartbeat <duration>': must be at most 86400s (a day)"),
        (["fanout", "--interval", "5000000000s", "--messages", "2"], "'--interval <duration>': must be at most 86400s"),
        (["fanout", "--interval", "0", "--timeout", "18446744073s"], "'--timeout <duration>': must be at most 86400s"),
        (["roundtrip", "--timeout", "18446744073.709551616s"], "'--timeout <duration>': not a whole number of nanoseconds, or too large"),
        (["fanout", "--dead-after", "90000s"], "'--dead-after <duration>': must be at most 86400s"),
        (["fanout", "--interval", "86400s", "--messages", "1000"], "would take longer than the limit of 366 days"),
        (["fanout", "--max-queue", "2048MiB"], "'--max-queue <bytes>': must hold one message (64B) and be at most 1024MiB"),
        (["fanout", "--max-queue", "99999999999999999999"], "'--max-queue <bytes>'"),
        (["fanout", "--timestamps", "hardware"], "'--timestamps <source>': expected user, kernel or both"),
        (["fanout", "--client-threads", "0"], "'--client-threads <k>': expected an integer from 1 to 64"),
        (["fanout", "--clients", "2", "--client-threads", "3"], "'--client-threads <k>': expected 1 to 2 (at most one per client)"),
        (["fanout", "--clients", "1000001"], "'--clients <n>': expected an integer from 1 to 1000000"),
        (["fanout", "--warmup", "100000001"], "'--warmup <n>': expected an integer from 0 to 100000000"),
        (["fanout", "--transport", "quic"], "'--transport <kind>': expected tcp, ws, tls or wss"),
        (["fanout", "--transport", "ws", "--ws-path", "chat"], "'--ws-path <path>': expected a path from /"),
        (["fanout", "--transport", "ws", "--ws-path", "/a b"], "'--ws-path <path>': expected a path from /"),
        (["fanout", "--tls-cert", "/etc/hostname", "--tls-key", "/etc/hostname"], "'--tls-cert <pem>': needs --transport tls or wss"),
        (["fanout", "--transport", "tls", "--tls-cert", "/etc/hostname"], "Error: --tls-cert needs --tls-key <pem>"),
        (["fanout", "--transport", "tls", "--tls-ca", "/nonexistent.pem"], "'--tls-ca <pem>': cannot read this file"),
        (["fanout", "--transport", "wss", "--tls-ca", "/etc"], "'--tls-ca <pem>': cannot read this file"),
        (["roundtrip", "--target", "127.0.0.1:6379"], "'--target <url>': expected SCHEME://HOST:PORT"),
        (["roundtrip", "--target", "http://127.0.0.1:80"], "'--target <url>': unknown scheme 'http'"),
        (["fanout", "--target", "redis://127.0.0.1:6379"], "'--target <url>': expected a channel after the address"),
        (["fanout", "--target", "nats://127.0.0.1:4222/a.>"], "'--target <url>': a subject to publish to cannot hold wildcards"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--framing", "xml"], "'--framing <kind>': expected length32, length16, line or stx"),
        (["roundtrip", "--framing", "line"], "Error: --framing goes with --target"),
        (["fanout", "--target", "ws://127.0.0.1:7/", "--publish", "{padding}"], "'--publish <template>': the template must hold {marker}"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--transport", "ws"], "Error: --transport is for the built-in server"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--framing", "stx", "--payload", "48"], "'--payload <bytes>': a message to tcp:// with --framing stx holds its 42-byte marker and 7 bytes of framing: at least 49B, at most 65542B"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--timestamps", "kernel"], "'--timestamps <source>': a --target run stamps in user space"),
        (["fanout", "--target", "redis://127.0.0.1:6379/c", "--threshold", "rtt.p99<1s"], "unknown metric 'rtt'"),
        (["fanout", "--count", "5"], "Error: Unknown option '--count'"),
        (["roundtrip", "--messages", "5"], "Error: Unknown option '--messages'"),
        (["fanout", "extra"], "Error: Unexpected argument 'extra'"),
        (["fanout", "--quiet=yes"], "Error: '--quiet' takes no value"),
        (["broadcast"], "Error: Unknown command 'broadcast'"),
        ([], "Error: Missing command"),
    ])
    func aBadCommandLineExitsTwoAndWritesNothing(arguments: [String], message: String) throws {
        let out = temporaryFolderPath()
        // --out right after the command, so that a missing value at the end stays missing.
        let withOut = arguments.isEmpty ? [] : [arguments[0], "--out", out] + arguments.dropFirst()
        let result = try BenchProcess.run(withOut)
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "stderr: \(result.standardError)")
        #expect(result.standardError.contains("Usage: bench"))
        #expect(result.standardError.contains("--help' for more information"))
        #expect(result.standardOutput.isEmpty)
        #expect(contents(of: out) == nil, "nothing written")
    }
}
