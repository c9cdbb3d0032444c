import BenchCore
import Testing

@testable import BenchProtocols

/// One request's stream on HTTP/2 as a pipe (RFC 8441's WebSocket, an event stream's GET), by bytes alone: the
/// server's frames split at every byte, the body out in place and whole, what the tunnel owes in answer, and each
/// refusal with its reason.
@Suite struct HTTP2TunnelTests {
    private func frame(_ kind: HTTP2Frame.Kind, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        HTTP2Frame.appendHeader(length: payload.count, kind: kind, flags: flags, stream: stream, to: &bytes)
        return bytes + payload
    }

    private func webSocketTunnel(fields: [HeaderField] = []) -> HTTP2Tunnel {
        HTTP2Tunnel(
            .webSocket(subprotocol: "mqtt"), path: "/mqtt", authority: "127.0.0.1:8443", usesTLS: true, fields: fields,
            maximumMessageSize: 1024)
    }

    /// A front's SETTINGS that enable the extended CONNECT (and a window of 65536 for new streams).
    private var settings: [UInt8] { frame(.settings, stream: 0, [0, 8, 0, 0, 0, 1, 0, 4, 0, 1, 0, 0]) }
    /// :status 200 (indexed), and the subprotocol asked for.
    private var ok: [UInt8] {
        frame(.headers, flags: HTTP2Frame.endHeaders, stream: 1, [0x88, 0x00, 22] + Array("sec-websocket-protocol".utf8) + [4] + Array("mqtt".utf8))
    }

    /// Reads `chunks` in turn, as reads would bring them: the body's pieces joined, and what is owed.
    private func read(_ tunnel: HTTP2Tunnel, _ chunks: [[UInt8]]) throws(MessageFramingError) -> (body: [UInt8], owed: [UInt8]) {
        var (body, outbox) = ([UInt8](), SessionOutbox())
        for chunk in chunks {
            var bytes = chunk
            var failure: MessageFramingError?
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                do throws(MessageFramingError) {
                    while let piece = try tunnel.next(buffer, offset: &offset, outbox: &outbox) { body += piece }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
        return (body, outbox.pending)
    }

    @Test func theBodyComesOutWholeAtEverySplitAndTheCONNECTWaitsForTheServersSettings() throws {
        let padded = [UInt8(4)] + Array("padded ".utf8) + [0, 0, 0, 0]
        let stream = settings + frame(.settings, flags: HTTP2Frame.acknowledge, stream: 0, []) + ok
            + frame(.data, stream: 1, Array("first ".utf8))
            + frame(.ping, stream: 0, [1, 2, 3, 4, 5, 6, 7, 8])
            + frame(.data, stream: 3, Array("another stream's ".utf8))
            + frame(.data, flags: HTTP2Frame.padded, stream: 1, padded)
            + frame(.data, stream: 1, []) + frame(.data, stream: 1, Array("last".utf8))
        for cut in 1..<stream.count {
            let tunnel = webSocketTunnel()
            var outbox = SessionOutbox()
            tunnel.start(outbox: &outbox)
            #expect(outbox.pending == HTTP2Connection.opening, "the CONNECT waits for the server's SETTINGS")
            let (body, owed) = try read(tunnel, [Array(stream[..<cut]), Array(stream[cut...])])
            #expect(String(decoding: body, as: UTF8.self) == "first padded last", "cut at \(cut)")
            #expect(tunnel.isOpen)
            let acknowledgement = HTTP2Frame.settings([], acknowledging: true)
            #expect(owed.starts(with: acknowledgement), "cut at \(cut)")
            #expect(owed.suffix(17) == HTTP2Frame.ping(0x0102_0304_0506_0708, acknowledging: true), "cut at \(cut)")
        }
    }

    @Test func theCONNECTCarriesTheProtocolThePathTheSubprotocolAndTheUsersFields() throws {
        let tunnel = webSocketTunnel(fields: [try HeaderField(name: "Authorization", value: "Bearer t")])
        var outbox = SessionOutbox()
        tunnel.start(outbox: &outbox)
        let (_, owed) = try read(tunnel, [settings])
        var request = owed
        request.removeFirst(HTTP2Frame.settings([], acknowledging: true).count)
        #expect(request[3] == HTTP2Frame.Kind.headers.rawValue && request[4] == HTTP2Frame.endHeaders && request[8] == 1)
        let length = Int(request[1]) << 8 | Int(request[2])
        var decoder = HPACKDecoder()
        var fields: [String] = []
        try Array(request[9..<9 + length]).withUnsafeBytes { block in
            try decoder.decode(block) { fields.append(String(decoding: $0, as: UTF8.self) + ": " + String(decoding: $1, as: UTF8.self)) }
        }
        #expect(fields == [
            ":method: CONNECT", ":protocol: websocket", ":scheme: https", ":path: /mqtt", ":authority: 127.0.0.1:8443",
            "sec-websocket-version: 13", "sec-websocket-protocol: mqtt", "user-agent: bench", "authorization: Bearer t",
        ])
    }

    @Test func anEventStreamsGETGoesAtOnce() throws {
        let tunnel = HTTP2Tunnel(.eventStream, path: "/events", authority: "h:80", usesTLS: false, fields: [], maximumMessageSize: 1024)
        var outbox = SessionOutbox()
        tunnel.start(outbox: &outbox)
        let request = Array(outbox.pending.dropFirst(HTTP2Connection.opening.count))
        #expect(request[3] == HTTP2Frame.Kind.headers.rawValue && request[4] & HTTP2Frame.endStream != 0, "a GET has no body")
        let (body, _) = try read(tunnel, [frame(.settings, stream: 0, []) + ok + frame(.data, stream: 1, Array("data: x\n\n".utf8))])
        #expect(body == Array("data: x\n\n".utf8) && tunnel.isOpen)
    }

    /// Each refusal, with the words it must carry.
    @Test(arguments: [
        ("no extended CONNECT", "SETTINGS_ENABLE_CONNECT_PROTOCOL"),
        ("a refusal with a body", ":status 403: no token"),
        ("a reset", "reset the stream (CANCEL)"),
        ("the end of the stream", "ended the stream (END_STREAM)"),
        ("DATA before the headers", "before the response's headers"),
        ("an HTTP/1.1 answer", "answered in HTTP/1.1, not HTTP/2"),
        ("a frame over the largest", "FRAME_SIZE_ERROR"),
        ("a GOAWAY that drops the stream", "GOAWAY (REFUSED_STREAM)"),
        ("trailers", "ended the stream (END_STREAM)"),
        ("another subprotocol", "did not take the WebSocket subprotocol mqtt (it answered wamp)"),
        ("DATA inside a header block", "a frame of type 0 inside a header block"),
    ])
    func eachRefusalSaysWhy(_ case: String, _ words: String) throws {
        let forbidden = [UInt8(0x48), 0x03] + Array("403".utf8)  // :status 403, a literal of indexed name 8
        let refused = frame(.headers, flags: HTTP2Frame.endHeaders, stream: 1, forbidden)
            + frame(.data, flags: HTTP2Frame.endStream, stream: 1, Array("no token".utf8))
        let wamp = [UInt8(0x00)] + [22] + Array("sec-websocket-protocol".utf8) + [4] + Array("wamp".utf8)
        let stream: [UInt8] = switch `case` {
        case "trailers": settings + ok + frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 1, [0x88])
        case "another subprotocol": settings + frame(.headers, flags: HTTP2Frame.endHeaders, stream: 1, [0x88] + wamp)
        case "DATA inside a header block": settings + frame(.headers, stream: 1, [0x88]) + frame(.data, stream: 1, [1])
        case "no extended CONNECT": frame(.settings, stream: 0, [])
        case "a refusal with a body": settings + refused
        case "a reset": settings + ok + frame(.resetStream, stream: 1, [0, 0, 0, 8])
        case "the end of the stream": settings + ok + frame(.data, flags: HTTP2Frame.endStream, stream: 1, Array("bye".utf8)) + settings
        case "DATA before the headers": settings + frame(.data, stream: 1, [1])
        case "an HTTP/1.1 answer": Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
        case "a frame over the largest": settings + [1, 0, 0, 0, 0, 0, 0, 0, 1]
        default: settings + frame(.goAway, stream: 0, [0, 0, 0, 0, 0, 0, 0, 7])
        }
        for cut in 1..<stream.count {
            do throws(MessageFramingError) {
                _ = try read(webSocketTunnel(), [Array(stream[..<cut]), Array(stream[cut...])])
                Issue.record("\(`case`) was taken, cut at \(cut)")
            } catch {
                #expect(error.description.contains(words), "\(`case`), cut at \(cut): \(error)")
            }
        }
    }

    /// A GOAWAY in order that keeps stream 1 (its last stream 1): the WebSocket goes on until the server closes.
    @Test func aGOAWAYInOrderThatKeepsTheStreamLetsItGoOn() throws {
        let tunnel = webSocketTunnel()
        let (body, _) = try read(tunnel, [settings + ok + frame(.goAway, stream: 0, [0, 0, 0, 1, 0, 0, 0, 0]) + frame(.data, stream: 1, [7])])
        #expect(body == [7])
    }

    @Test func aRefusalWhoseBodyIsStillComingSaysSoMeanwhile() throws {
        let tunnel = webSocketTunnel()
        let head = frame(.headers, flags: HTTP2Frame.endHeaders, stream: 1, [0x48, 0x03] + Array("401".utf8))
        _ = try read(tunnel, [settings + head + frame(.data, stream: 1, Array("who are you".utf8))])
        #expect(tunnel.pendingRefusal == "the server answered :status 401: who are you")
        #expect(!tunnel.isOpen)
    }

    @Test func whatThisSideSendsStaysWithinTheServersWindows() throws {
        let tunnel = webSocketTunnel()
        _ = try read(tunnel, [settings + ok])
        #expect(tunnel.takes(65_535))  // the connection's window: 65,535 until the server opens it
        #expect(!tunnel.takes(1))
        _ = try read(tunnel, [frame(.windowUpdate, stream: 0, [0, 0, 0, 10])])
        #expect(tunnel.takes(1), "stream 1's window is 65,536 (the server's SETTINGS)")
        #expect(!tunnel.takes(1), "then stream 1's is closed")
        var sent: [UInt8] = []
        _ = try read(tunnel, [frame(.windowUpdate, stream: 1, [0, 0, 0, 100])])
        #expect(Array("pong".utf8).withUnsafeBytes { tunnel.wrapping($0) { sent += $0; return true } })
        #expect(sent == frame(.data, stream: 1, Array("pong".utf8)))
    }
}
