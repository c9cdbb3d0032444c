import Foundation
import Testing

/// Bad command lines: a clear message and the usage on stderr, exit 2, nothing run and nothing written.
@Suite(.timeLimit(.minutes(10))) struct UsageErrorTests {
    @Test(arguments: [
        (["fanout", "--frobnicate"], "Error: Unknown option '--frobnicate'"),
        (["fanout", "--clients", "0"], "Error: The value '0' is invalid for '--clients <n>'"),
        (["fanout", "--clients", "many"], "Error: The value 'many' is invalid for '--clients <n>'"),
        (["fanout", "--clients"], "Error: Missing value for '--clients <n>'"),
        (["fanout", "--clients", "--quiet"], "Error: Missing value for '--clients <n>'"),
        (["fanout", "--interval", "10"], "Error: The value '10' is invalid for '--interval <duration>': missing unit"),
        (["fanout", "--interval", "10m"], "Error: The value '10m' is invalid for '--interval <duration>'"),
        (["fanout", "--duration", "5m", "--messages", "10"], "--duration and --messages both say when the run ends"),
        (["roundtrip", "--duration", "5s", "--count", "10"], "--duration and --count both say when the run ends"),
        (["fanout", "--duration", "8d"], "'--duration <duration>': expected a number and a unit: ns, us, ms, s, m or h"),
        (["fanout", "--duration", "169h"], "'--duration <duration>': must be at most 604800s (a week)"),
        (["fanout", "--duration", "0"], "'--duration <duration>': must be more than 0"),
        (["fanout", "--report-every", "2d"], "'--report-every <duration>'"),
        (["fanout", "--exact-budget", "2TiB"], "'--exact-budget <bytes>'"),
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
        (["fanout", "--reconnect-base", "1s"], "--reconnect-base does nothing without --reconnect"),
        (["roundtrip", "--reconnect-tries", "3"], "--reconnect-tries does nothing without --reconnect"),
        (["fanout", "--reconnect", "--reconnect-base", "2s", "--reconnect-max", "1s"], "'--reconnect-max <duration>': must be at least --reconnect-base"),
        (["fanout", "--reconnect", "--reconnect-tries", "0"], "'--reconnect-tries <n>'"),
        (["fanout", "--reconnect", "--reconnect-base", "0"], "'--reconnect-base <duration>': must be more than 0"),
        (["fanout", "--reconnect", "--reconnect-max", "18446744073s"], "'--reconnect-max <duration>': must be at most 86400s"),
        (["fanout", "--drop-connections-at", "0"], "'--drop-connections-at <duration>': must be more than 0"),
        (["fanout", "--offline-queue", "--reconnect"], "--offline-queue is for roundtrip, not fanout"),
        (["fanout", "--threshold", "reconnect.p99<2s"], "this run has no reconnect metric: it is measured when clients may come back or be cut off (--reconnect, --drop-connections-at, a --link with nat-idle or blackout)"),
        (["roundtrip", "--offline-queue", "--reconnect", "--interval", "0"], "--offline-queue is for open-loop roundtrip"),
        (["roundtrip", "--offline-queue"], "--offline-queue is for open-loop roundtrip (--interval above 0) whose clients come back"),
        (["fanout", "--source-addresses", "127.0.0.2,1.2.3"], "'--source-addresses <list>': '1.2.3' is not a numeric IPv4 or IPv6 address"),
        (["fanout", "--source-addresses", "127.0.0.2,127.0.0.2"], "'--source-addresses <list>': at most 250 addresses, each once"),
        (["fanout", "--drop-connections-at", "5d"], "'--drop-connections-at <duration>'"),
        (["chat", "--reconnect"], "--reconnect in chat is for your server's members (--target): the built-in relay is not restarted"),
        (["chat", "--drop-connections-at", "1s"], "--drop-connections-at in chat is for your server's members (--target)"),
        (["chat", "--dead-after", "10s"], "--dead-after in chat is for your server's members (--target): it finds a server that hung"),
        (["fanout", "--transport", "tcp,ws", "--threshold", "connect_ws.p99<1s"], "this run has no connect_ws metric: a connect's phases are measured against a --target, and over --transport tls, ws or wss"),
        (["fanout", "--target", "nats://127.0.0.1:1/n", "--dead-after", "10s", "--heartbeat", "0"], "--dead-after against --target needs a --heartbeat above 0"),
        // gRPC: its method in the URL, the publisher's own method, messages as protoc --decode_raw prints them.
        (["fanout", "--target", "grpc://127.0.0.1:1/Subscribe", "--publish", "2: \"{marker}\""], "expected the method after the address, as grpc://HOST:PORT/package.Service/Method"),
        (["fanout", "--target", "grpc://127.0.0.1:1/bench.Relay/Subscribe", "--publish", "2: \"{marker}\""], "a grpc:// target's fanout needs --publish-method package.Service/Method"),
        (["fanout", "--target", "grpc://127.0.0.1:1/bench.Relay/Subscribe"], "a grpc:// target needs --publish '2: \"{marker}{padding}\"': the message the publisher sends"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "a.B/P", "--publish", "2: {marker}"], "{marker} must be inside a string field"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "a.B/P", "--publish", "2: \"{marker}\" 3: 1{padding}"], "'--publish <template>': is no protocol buffers message"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "a.B/P", "--publish", "2: \"{marker}\"", "--subscribe", "1: lobby"], "'--subscribe <text>': is no protocol buffers message as protoc --decode_raw prints one"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "P", "--publish", "2: \"{marker}\""], "'--publish-method <package.Service/Method>': expected package.Service/Method"),
        (["fanout", "--target", "nats://127.0.0.1:1/n", "--streams-per-connection", "10"], "'--streams-per-connection <n>': is for a grpc:// or grpcs:// target's fanout"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "a.B/P", "--publish", "2: \"{marker}\"", "--streams-per-connection", "1001"], "'--streams-per-connection <n>': expected 1 to 1000"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "a.B/P", "--publish", "2: \"{marker}\"", "--streams-per-connection", "10", "--link", "3g"], "a --link is each client's own"),
        (["fanout", "--streams-per-connection", "10"], "--streams-per-connection goes with --target"),
        (["fanout", "--http2"], "--http2 goes with --target"),
        (["fanout", "--target", "grpc://127.0.0.1:1/a.B/S", "--publish-method", "a.B/P", "--publish", "2: \"{marker}\"", "--http2"], "it is HTTP/2 already"),
        (["fanout", "--target", "redis://127.0.0.1:1/c", "--http2"], "--http2 does not apply to a redis:// target; it is for ws://, wss://"),
        (["fanout", "--target", "ws://127.0.0.1:1/", "--http2", "--header", "Keep-Alive: timeout=5"], "--header Keep-Alive is HTTP/1.1's own"),
        (["fanout", "--target", "ws://127.0.0.1:1/", "--http2", "--payload", "16KiB"], "a WebSocket message over HTTP/2 (--http2) goes in one DATA frame: at most 16370B"),
        (["fanout", "--target", "nats://127.0.0.1:1/n", "--publish-method", "a.B/P"], "'--publish-method <package.Service/Method>': is for a grpc:// or grpcs:// target's fanout and chat"),
        (["chat", "--target", "grpc://127.0.0.1:1/a.B/Chat", "--publish", "2: \"{marker}\""], "a grpc:// target's chat needs --publish-method package.Service/Method: the unary method each member calls with its messages"),
        (["fanout", "--target", "tcp://127.0.0.1:1", "--dead-after", "10s", "--heartbeat", "1s"], "--heartbeat does not apply to a tcp:// target: its server has no ping to answer"),
        (["fanout", "--target", "nats://127.0.0.1:1/n", "--heartbeat", "1s"], "--heartbeat does not apply to a nats:// target without --dead-after: its subscribers ping only to find a server that hung"),
        (["roundtrip", "--target", "ws://127.0.0.1:1/", "--heartbeat", "2s"], "--heartbeat does not apply to a ws:// target without --dead-after"),
        (["fanout", "--target", "tcp://127.0.0.1:1", "--dead-after", "3s", "--interval", "300ms", "--timeout", "1s"], "--dead-after 3s is too short for a tcp:// target: its server has no ping, so a connection is heard by the run's messages alone; it must be longer than 6s, the run's quietest time (20 × --interval with poisson arrivals, or --timeout, the longer)"),
        (["roundtrip", "--target", "tcp://127.0.0.1:1", "--dead-after", "150ms", "--interval", "100ms,50ms", "--arrival", "fixed", "--timeout", "100ms"], "it must be longer than 200ms, the run's quietest time (2 × --interval with fixed arrivals"),
        (["fanout", "--target", "tcp://127.0.0.1:1", "--dead-after", "4s", "--interval", "10ms"], "it must be longer than 5s, the run's quietest time"),
        (["chat", "--target", "redis://127.0.0.1:1/c", "--reconnect"], "--reconnect in a chat through redis:// is not built yet"),
        (["roundtrip", "--offline-queue", "--reconnect", "--target", "ws://127.0.0.1:1/"], "--offline-queue holds the built-in server's messages"),
        (["fanout", "--clients", "2", "--client-threads", "3"], "'--client-threads <k>': expected 1 to 2 (at most one per client)"),
        (["fanout", "--target", "sse://127.0.0.1:1/events"], "an sse:// target needs --publish-url http://HOST:PORT/PATH"),
        (["fanout", "--target", "sses://127.0.0.1:1/e", "--publish-url", "http://127.0.0.1:1/p"], "expected https://ADDRESS:PORT/PATH with a numeric address (https for an sses:// target)"),
        (["roundtrip", "--target", "sses://127.0.0.1:1/e"], "sses:// publishes over separate HTTP requests: measure it with bench fanout"),
        (["fanout", "--target", "socketio://127.0.0.1:1/chat", "--publish", "[\"a\",\"{marker}\"]", "--ws-path", "realtime"], "'--ws-path <path>': expected a path from /"),
        (["fanout", "--target", "ws://127.0.0.1:1/", "--ws-path", "/x"], "--ws-path is for the built-in server; --target says how to reach yours"),
        (["fanout", "--target", "mqtts://127.0.0.1:1/t", "--tls-cert", "x"], "--tls-cert is for the built-in server"),
        (["fanout", "--target", "redis://127.0.0.1:1/x", "--tls-ca", "/etc/hostname"], "--tls-ca needs a target over TLS"),
        (["fanout", "--tls-insecure"], "--tls-insecure needs --transport tls or wss"),
        (["fanout", "--transport", "tls", "--tls-ca", "/etc/hostname", "--tls-pin", "/etc/hostname"],
            "--tls-ca and --tls-pin say different things"),
        (["fanout", "--transport", "tls", "--tls-pin", "/nonexistent.pem"], "'--tls-pin <pem>': cannot read this file"),
        (["fanout", "--metrics-listen", "9464"], "'--metrics-listen <host:port>': expected a numeric address and a port"),
        (["roundtrip", "--metrics-listen", "example.com:9464"], "'--metrics-listen <host:port>': expected a numeric address and a port"),
        (["roundtrip", "--target", "redis://127.0.0.1:1/t"], "redis:// has no round trip (a subscribed Redis connection cannot publish)"),
        (["roundtrip", "--target", "sse://127.0.0.1:1/e"], "sse:// publishes over separate HTTP requests: measure it with bench fanout"),
        (["roundtrip", "--target", "tcp://127.0.0.1:1", "--publish-url", "http://127.0.0.1:1/p"], "Unknown option '--publish-url'"),
        (["fanout", "--target", "socketio://127.0.0.1:1/chat"], "a socketio:// target needs --publish '[\"EVENT\",\"{marker}{padding}\"]'"),
        (["roundtrip", "--target", "socketio://127.0.0.1:1/chat"], "a socketio:// target needs --publish '[\"EVENT\",\"{marker}{padding}\"]': the message the clients send"),
        (["roundtrip", "--target", "mqtt://127.0.0.1:1/t", "--subscribe", "x"], "--subscribe does not apply to an mqtt:// target"),
        (["fanout", "--target", "redis://127.0.0.1:1/x", "--publish-url", "http://127.0.0.1:1/p"], "'--publish-url <url>': is for sse:// and sses:// targets"),
        (["fanout", "--target", "sse://127.0.0.1:1/e", "--publish-url", "ws://127.0.0.1:1/p"], "expected http://ADDRESS:PORT/PATH with a numeric address"),
        (["fanout", "--target", "http://127.0.0.1:1/p"], "http:// is no target: did you mean ws://127.0.0.1:1/p (a WebSocket server) or sse://127.0.0.1:1/p (a Server-Sent Events stream)? An http:// URL is where an sse:// target's publisher POSTs: give it as --publish-url"),
        (["fanout", "--target", "mqtt://127.0.0.1:1/t", "--subscribe", "x"], "--subscribe does not apply to an mqtt:// target"),
        (["fanout", "--target", "redis://127.0.0.1:1/x", "--qos", "1"], "'--qos <0|1|2>': is for MQTT targets (mqtt, mqtts, mqtt+ws, mqtt+wss)"),
        (["roundtrip", "--target", "tcp://127.0.0.1:1", "--client-procs", "2", "--client-threads", "2"], "--client-threads does not apply with --client-procs on a --target run"),
        (["fanout", "--target", "redis://127.0.0.1:1/x", "--client-procs", "2", "--client-threads", "2"], "--client-threads does not apply with --client-procs on a --target run"),
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
        (["roundtrip", "--target", "https://127.0.0.1:80"], "'--target <url>': https:// is no target: did you mean wss://127.0.0.1:80"),
        (["fanout", "--target", "redis://127.0.0.1:6379"], "'--target <url>': expected a channel after the address"),
        (["fanout", "--target", "nats://127.0.0.1:4222/a.>"], "'--target <url>': a subject to publish to cannot hold wildcards"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--framing", "xml"], "'--framing <kind>': expected length32, length16, line or stx"),
        (["roundtrip", "--framing", "line"], "Error: --framing goes with --target"),
        (["fanout", "--header", "Authorization: Bearer x"], "Error: --header goes with --target"),
        (["fanout", "--target", "redis://127.0.0.1:1/x", "--header", "X-A: 1"], "'--header <'Name: value'>': an redis:// target has no HTTP handshake to carry it"),
        (["roundtrip", "--target", "mqtt://127.0.0.1:1/t", "--header", "X-A: 1"], "an mqtt:// target has no HTTP handshake"),
        (["fanout", "--target", "ws://127.0.0.1:1/", "--header", "Authorization"], "The value 'Authorization' is invalid for '--header <'Name: value'>': expected 'Name: value'"),
        (["fanout", "--target", "ws://127.0.0.1:1/", "--header", "Host: evil"], "'--header <'Name: value'>': Host is written by the handshake itself"),
        (["fanout", "--target", "mqtt+ws://127.0.0.1:1/t", "--subscribe", "x"], "--subscribe does not apply to an mqtt+ws:// target"),
        (["fanout", "--target", "ws://127.0.0.1:1/", "--ws-path", "/x"], "--ws-path is for the built-in server"),
        (["fanout", "--target", "mqtt+wss://127.0.0.1:1/t", "--tls-cert", "x"], "--tls-cert is for the built-in server"),
        (["fanout", "--target", "ws://127.0.0.1:7/", "--publish", "{padding}"], "'--publish <template>': the template must hold {marker}"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--transport", "ws"], "Error: --transport is for the built-in server"),
        (["roundtrip", "--target", "tcp://127.0.0.1:7", "--framing", "stx", "--payload", "48"], "'--payload <bytes>': a message to tcp:// with --framing stx holds its 42-byte marker and 7 bytes of framing: at least 49B, at most 65542B"),
        (["fanout", "--target", "redis://127.0.0.1:6379/c", "--threshold", "rtt.p99<1s"], "this run has no rtt metric (its metrics: delivery spread completion lag"),
        (["fanout", "--count", "5"], "Error: Unknown option '--count': fanout takes --messages (broadcasts)"),
        (["roundtrip", "--messages", "5"], "Error: Unknown option '--messages': roundtrip takes --count (messages per client)"),
        (["roundtrip", "--server-threads", "2"], "Error: Unknown option '--server-threads': --server-threads is for fanout, not roundtrip"),
        (["roundtrip", "--subscribe", "hi"], "Error: --subscribe goes with --target"),
        (["roundtrip", "--publish", "{marker}"], "Error: --publish goes with --target"),
        (["roundtrip", "--publish-url", "http://127.0.0.1:1/p"], "Error: Unknown option '--publish-url': --publish-url is for fanout, not roundtrip"),
        (["fanout", "--clinets", "5"], "Error: Unknown option '--clinets'. Did you mean '--clients'?"),
        (["roundtrip", "--cuont", "5"], "Error: Unknown option '--cuont'. Did you mean '--count'?"),
        (["fanout", "--mesages=5"], "Error: Unknown option '--mesages'. Did you mean '--messages'?"),
        (["fanout", "--server-thread", "2"], "Error: Unknown option '--server-thread'. Did you mean '--server-threads'?"),
        (["fanout", "--ws", "/chat"], "Error: Unknown option '--ws'. Did you mean '--ws-path'?"),
        (["fanout", "--hort", "1"], "Error: Unknown option '--hort'. Did you mean '--host' or '--port'?"),
        (["fanout", "--frobnicate", "1"], "Error: Unknown option '--frobnicate'\n"),
        (["fanout", "--tls", "x"], "Error: Unknown option '--tls'\n"),
        (["fanout", "extra"], "Error: Unexpected argument 'extra'"),
        (["fanout", "--quiet=yes"], "Error: '--quiet' takes no value"),
        (["broadcast"], "Error: Unknown command 'broadcast'\n"),
        (["fanot"], "Error: Unknown command 'fanot'. Did you mean 'fanout'?"),
        (["capacty", "fanout"], "Error: Unknown command 'capacty'. Did you mean 'capacity'?"),
        ([], "Error: Missing command"),
        // Chat: rooms, rate, and what a chat run does not take.
        (["chat", "--rooms", "5", "--room-size", "4"], "--rooms and --room-size both say how big rooms are: give one"),
        (["chat", "--clients", "10", "--rooms", "6"], "'--rooms <n>': 10 clients cannot fill 6 rooms: every room needs at least 2 members"),
        (["chat", "--rooms", "0"], "'--rooms <n>': expected an integer from 1"),
        (["chat", "--room-size", "1"], "'--room-size <n>': expected an integer from 2"),
        (["chat", "--room-sizes", "zipf:0"], "'--room-sizes <kind>': expected uniform or zipf:S"),
        (["chat", "--rate", "0/s"], "'--rate <r>': expected messages per member per second, minute or hour"),
        (["chat", "--rate", "5000/s"], "'--rate <r>'"),
        (["chat", "--rate", "2/day"], "'--rate <r>'"),
        (["chat", "--interval", "10ms"], "Unknown option '--interval': chat takes --rate"),
        (["chat", "--transport", "ws"], "Unknown option '--transport': --transport is for fanout, not chat"),
        (["chat", "--threshold", "rtt.p99<1ms"], "this run has no rtt metric"),
        (["chat", "--target", "sse://127.0.0.1:1/e"], "publishes over separate HTTP requests, not on a member's connection"),
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

    /// An unknown option of the other commands: the nearest one suggested, or nothing when nothing is close.
    @Test(arguments: [
        (["check", "{dir}/run", "--thresold", "rtt.p99<1ms"], "Error: Unknown option '--thresold'. Did you mean '--threshold'?"),
        (["check", "{dir}/run", "--jsno"], "Error: Unknown option '--jsno'. Did you mean '--json'?"),
        (["check", "{dir}/run", "--frobnicate"], "Error: Unknown option '--frobnicate'\n"),
        (["compare", "{dir}/a", "{dir}/b", "--max-regresion", "rtt.p99=+5%"], "Error: Unknown option '--max-regresion'. Did you mean '--max-regression'?"),
        (["compare", "{dir}/a", "{dir}/b", "--noise", "1ms"], "Error: Unknown option '--noise'. Did you mean '--noise-floor'?"),
        (["report", "{dir}/run", "--hepl"], "Error: Unknown option '--hepl'. Did you mean '--help'?"),
        (["suite", "{dir}/x.suite", "--qiuet"], "Error: Unknown option '--qiuet'. Did you mean '--quiet'?"),
        (["suite", "{dir}/x.suite", "--ot", "{dir}/results"], "Error: Unknown option '--ot'. Did you mean '--out'?"),
    ])
    func anUnknownOptionOfAnotherCommandSuggestsTheNearest(arguments: [String], message: String) throws {
        let directory = temporaryFolderPath()
        // The folders and files named are in a folder that does not exist, and must stay so.
        let result = try BenchProcess.run(arguments.map { $0.hasPrefix("{dir}/") ? directory + $0.dropFirst(5) : $0 })
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "stderr: \(result.standardError)")
        #expect(result.standardError.contains("Usage: bench \(arguments[0])"))
        #expect(result.standardOutput.isEmpty)
        #expect(contents(of: directory) == nil, "nothing written")
    }

    /// A suite line with the other scenario's option, or a misspelt one, is refused with the same hint.
    @Test(arguments: [
        ("a roundtrip --messages 5", "x.suite:1: Unknown option '--messages': roundtrip takes --count (messages per client)"),
        ("a fanout --count 5", "x.suite:1: Unknown option '--count': fanout takes --messages (broadcasts)"),
        ("a roundtrip --publish-url http://127.0.0.1:1/p", "x.suite:1: Unknown option '--publish-url': --publish-url is for fanout, not roundtrip"),
        ("a fanout --clinets 5", "x.suite:1: Unknown option '--clinets'. Did you mean '--clients'?"),
    ])
    func aSuiteLineWithAnUnknownOptionGetsTheSameHint(text: String, message: String) throws {
        let directory = temporaryFolderPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/x.suite"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["suite", path, "--out", out])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message.replacingOccurrences(of: "x.suite", with: path)), "stderr: \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(contents(of: out) == nil, "nothing written")
    }
}

/// `bench serve roundtrip --target` with a server that has no round trip: refused before anything listens.
@Suite(.timeLimit(.minutes(10))) struct ServeRoundtripTargetUsageTests {
    @Test func aRoundtripThroughRedisIsNotServedToAgents() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["serve", "roundtrip", "--token", "t", "--target", "redis://127.0.0.1:1/x", "--out", out])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("redis://") && result.standardError.contains("bench fanout"), "\(result.standardError)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty, "no run folder")
    }
}

/// `bench clients --channel` is for a fan-out target run's own children: a person who types it is told so.
@Suite(.timeLimit(.minutes(10))) struct ChannelUsageTests {
    @Test(arguments: [
        (["--channel", "3"], "'--channel <fd>': is not an inherited socket (this option is for the run's own children)"),
        (["--channel", "3", "--token", "t"], "--token does not apply with --channel"),
        (["--channel", "1"], "'--channel <fd>': expected an integer from 3 to 1023"),
    ])
    func aChannelThatIsNotTheRunsIsAUsageError(options: [String], message: String) throws {
        let result = try BenchProcess.run(["clients"] + options)
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}

/// `bench serve` takes what applies to a server whose clients come from agents, and says why for the rest.
@Suite(.timeLimit(.minutes(10))) struct ServeUsageTests {
    @Test(arguments: [
        (["--port", "7100"], "--port does not apply to bench serve: bench serve listens where --listen HOST:PORT says"),
        (["--host=0.0.0.0"], "--host does not apply to bench serve: bench serve listens where --listen HOST:PORT says"),
        (["--client-procs", "2"], "--client-procs does not apply to bench serve: the clients come from agents"),
        (["--client-threads", "2"], "--client-threads does not apply to bench serve: the clients come from agents"),
        (["--repeat", "2"], "--repeat does not apply to bench serve: bench serve is one run that agents join"),
        (["--clients", "10,20"], "bench serve is one run that agents join: give single values, not lists"),
    ])
    func anOptionThatDoesNotApplyIsAUsageErrorSayingWhy(options: [String], message: String) throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["serve", "fanout", "--token", "t", "--out", out] + options)
        #expect(result.exitCode == 2)
        #expect(result.standardError.hasPrefix("Error: " + message), "\(result.standardError)")
        #expect(contents(of: out) == nil, "nothing written")
    }

    @Test func serveHelpShowsItsScenarios() throws {
        for arguments in [["serve", "--help"], ["serve", "-h"], ["help", "serve"], ["serve", "fanout", "--port", "1", "--help"]] {
            let result = try BenchProcess.run(arguments)
            #expect(result.exitCode == 0, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.contains("bench serve"), "\(arguments): \(result.standardOutput)")
        }
    }
}
