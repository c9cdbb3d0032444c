import BenchClients
import BenchProtocols

/// `--http2`: a target's WebSocket or event stream reached as a stream of an HTTP/2 connection, as behind an HTTP/2
/// front (HAProxy, Envoy, nghttpx).
extension RunOptions {
    static let http2Option = OptionSpec(
        "http2",
        help: "Reach a WebSocket or Server-Sent Events target over HTTP/2, one connection per client: a WebSocket by "
            + "extended CONNECT (RFC 8441; also socketio and mqtt+ws, nats+ws, stomp+ws), an event stream's GET as a "
            + "stream; over TLS (wss, sses) HTTP/2 is chosen by ALPN h2, over cleartext it is spoken at once (h2c). "
            + "An sse:// target's publisher still POSTs over HTTP/1.1. Messages up to 16 KiB.")

    /// Reads `--http2`: for a target whose connections make an HTTP/1.1 handshake that HTTP/2 can carry.
    static func readHTTP2(into target: inout TargetSettings?, parsed: ParsedOptions, command: String) throws(UsageError) {
        guard parsed.has("http2") else { return }
        guard let scheme = target?.url.scheme else {
            throw UsageError(message: "--http2 goes with --target", command: command)
        }
        guard scheme.reachesOverHTTP2 else {
            let reachable = TargetURL.Scheme.allCases.filter(\.reachesOverHTTP2).map { "\($0.rawValue)://" }
            throw UsageError(
                message: "--http2 does not apply to a \(scheme.rawValue):// target"
                    + (scheme.record.alpn == "h2" ? ": it is HTTP/2 already" : "")
                    + "; it is for \(reachable.joined(separator: ", "))",
                command: command)
        }
        let hopByHop: Set<String> = ["connection", "upgrade", "keep-alive", "proxy-connection", "transfer-encoding", "te", "host"]
        if let field = target?.headers.first(where: { hopByHop.contains($0.name.lowercased()) }) {
            throw UsageError(
                message: "--header \(field.name) is HTTP/1.1's own: a request over HTTP/2 (--http2) carries no such field "
                    + "(RFC 9113 §8.2.2; the host goes as :authority, from the URL)", command: command)
        }
        target?.overHTTP2 = true
    }
}
