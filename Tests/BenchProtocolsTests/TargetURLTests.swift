import BenchCore
import Testing

@testable import BenchProtocols

/// A target's URL, as the command line, a client spec or a saved run gives it: its scheme (and the protocol, TLS and
/// WebSocket it names), host, port, path and credentials, every malformed one refused with a reason.
@Suite struct TargetURLTests {

    @Test func targetURLParsesTCP() throws {
        let url = try TargetURL("tcp://127.0.0.1:6379")
        #expect(url.scheme == .tcp)
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 6379)
        #expect(url.path == "")
        #expect(url.password == nil)
        #expect(url.description == "tcp://127.0.0.1:6379")
    }

    @Test func targetURLAcceptsTCPWithTrailingSlash() throws {
        let url = try TargetURL("tcp://localhost:1/")
        #expect(url.scheme == .tcp)
        #expect(url.host == "localhost")
        #expect(url.port == 1)
        #expect(url.path == "")
    }

    @Test func targetURLDefaultsWebSocketPathToRoot() throws {
        let url = try TargetURL("ws://h:80")
        #expect(url.scheme == .ws)
        #expect(url.host == "h")
        #expect(url.port == 80)
        #expect(url.path == "/")
        #expect(url.description == "ws://h:80/")
    }

    @Test func targetURLKeepsWebSocketPath() throws {
        let url = try TargetURL("ws://h:80/chat/room")
        #expect(url.scheme == .ws)
        #expect(url.path == "/chat/room")
        #expect(url.description == "ws://h:80/chat/room")
    }

    @Test func targetURLParsesSecureWebSocketWithIPv6Host() throws {
        let url = try TargetURL("wss://[::1]:8443/x")
        #expect(url.scheme == .wss)
        #expect(url.host == "::1")
        #expect(url.port == 8443)
        #expect(url.path == "/x")
        #expect(url.description == "wss://[::1]:8443/x")
    }

    @Test func targetURLParsesRedisChannel() throws {
        let url = try TargetURL("redis://127.0.0.1:6379/news")
        #expect(url.scheme == .redis)
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 6379)
        #expect(url.path == "news")
        #expect(url.password == nil)
        #expect(url.description == "redis://127.0.0.1:6379/news")
    }

    @Test func anMQTTTargetCarriesItsUserAndPasswordAndReportsHideThePassword() throws {
        let url = try TargetURL("mqtt://bench:s3cret@127.0.0.1:1883/prices/eur")
        #expect(url.scheme == .mqtt && url.path == "prices/eur")
        #expect(url.username == "bench" && url.password == "s3cret")
        #expect(url.description == "mqtt://bench:***@127.0.0.1:1883/prices/eur")
        #expect(try TargetURL(url.textWithCredentials) == url)
        #expect(try TargetURL("mqtt://bench@127.0.0.1:1883/t").password == nil)
        for bad in ["mqtt://127.0.0.1:1883/", "mqtt://127.0.0.1:1883/a/+", "mqtt://127.0.0.1:1883/#", "mqtt://:p@127.0.0.1:1/t"] {
            #expect(throws: TargetURL.Invalid.self, "\(bad)") { try TargetURL(bad) }
        }
    }

    @Test func targetURLParsesRedisPasswordAndHidesIt() throws {
        let url = try TargetURL("redis://:secret@127.0.0.1:6379/news")
        #expect(url.scheme == .redis)
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 6379)
        #expect(url.path == "news")
        #expect(url.password == "secret")
        #expect(url.description == "redis://:***@127.0.0.1:6379/news")
        #expect(!url.description.contains("secret"))
    }

    @Test func targetURLParsesNATSSubject() throws {
        let url = try TargetURL("nats://127.0.0.1:4222/prices.eur")
        #expect(url.scheme == .nats)
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 4222)
        #expect(url.path == "prices.eur")
        #expect(url.description == "nats://127.0.0.1:4222/prices.eur")
    }

    /// A protocol bench speaks in lines over WebSocket, written as a scheme of its own (the issue about it wrote
    /// graphql+ws://): the error points to its ws:// URL and --protocol.
    @Test(arguments: [
        ("graphql+ws://h:4000/graphql", "graphql goes over WebSocket: --target ws://HOST:PORT/PATH --protocol graphql"),
        ("graphql+wss://h:443/graphql", "--target wss://HOST:PORT/PATH --protocol graphql"),
        ("actioncable://h:3000/cable", "--protocol actioncable"),
    ])
    func aDescribedProtocolAsASchemePointsToProtocol(_ text: String, _ hint: String) {
        #expect(throws: TargetURL.Invalid.self) { try TargetURL(text) }
        do {
            _ = try TargetURL(text)
        } catch {
            #expect(error.reason.contains(hint), "\(error.reason)")
        }
    }

    @Test(arguments: [
        "127.0.0.1:80",  // no scheme
        "gopher://h:1",  // unknown scheme (http:// parses: it is --publish-url's, refused as a target by the command line)
        "tcp://h",  // no port
        "tcp://h:0",  // port 0
        "tcp://h:70000",  // port out of range
        "tcp://:80",  // no host
        "tcp://h:1/path",  // tcp has no path
        "redis://h:1",  // no channel
        "redis://h:1/",  // empty channel
        "nats://h:1/a.*",  // wildcard
        "nats://h:1/a.>",  // wildcard
        "redis://user:pw@h:1/c",  // only :password
        "ws://user:pw@h:1/",  // credentials only for redis
        "ws://h:1/a b",  // blank in path
        "ws://[::1:80/",  // unclosed IPv6 bracket
    ])
    func targetURLRejectsWithReason(_ text: String) {
        do {
            let url = try TargetURL(text)
            Issue.record("'\(text)' parsed as \(url)")
        } catch {
            #expect(!error.reason.isEmpty, "'\(text)' rejected without a reason")
        }
    }

    @Test(arguments: [
        ("mqtt+ws://u:p@127.0.0.1:1883/prices", TargetURL.Scheme.mqtt, false, "prices", "/mqtt"),
        ("mqtt+wss://broker.example:443/a/b", .mqtt, true, "a/b", "/mqtt"),
        ("nats+ws://127.0.0.1:8080/quotes.eur", .nats, false, "quotes.eur", "/"),
        ("nats+wss://127.0.0.1:8443/x", .nats, true, "x", "/"),
    ])
    func protocolsOverWebSocketAreTheirProtocolOnAWebSocket(
        text: String, protocolScheme: TargetURL.Scheme, tls: Bool, path: String, webSocketPath: String
    ) throws {
        let url = try TargetURL(text)
        #expect(url.scheme.protocolScheme == protocolScheme && url.scheme.overWebSocket)
        #expect(url.scheme.usesTLS == tls && url.path == path)
        #expect(url.scheme.defaultWebSocketPath == webSocketPath)
        #expect(url.scheme.webSocketSubprotocol == (protocolScheme == .mqtt ? "mqtt" : nil))
        #expect(try TargetURL(url.textWithCredentials) == url, "reads back")
    }

    @Test func theSchemesOfOldAreNotOverWebSocketAndKeepTheirTLS() throws {
        for scheme in TargetURL.Scheme.allCases where !scheme.rawValue.contains("+") {
            #expect(!scheme.overWebSocket)
            #expect(scheme.usesTLS == (scheme.protocolScheme != scheme), "\(scheme)")
        }
        #expect(try TargetURL("mqtt+ws://u:secret@h:1/t").description == "mqtt+ws://u:***@h:1/t")
        #expect(throws: TargetURL.Invalid.self) { _ = try TargetURL("nats+ws://h:1/a.*") }
        #expect(throws: TargetURL.Invalid.self) { _ = try TargetURL("mqtt+ws://h:1/a/#") }
    }
}
