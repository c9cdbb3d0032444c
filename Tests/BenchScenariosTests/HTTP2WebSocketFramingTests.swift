import BenchClients
import BenchCore
import BenchNet
import Testing

/// A WebSocket in an HTTP/2 stream as the connection's framing layer sees it, by bytes alone: the server's WebSocket
/// messages in DATA frames split at every byte come out whole, its ping is answered by a masked pong in a DATA frame,
/// and what this side sends stays within the server's windows and one frame, each refusal with its reason.
@Suite struct HTTP2WebSocketFramingTests {
    /// An HTTP/2 frame of `kind` (RFC 9113 §6's numbers).
    private func frame(_ kind: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), kind, flags,
            UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// The server's SETTINGS (extended CONNECT enabled) and its 200 on stream 1.
    private var opening: [UInt8] { frame(4, stream: 0, [0, 8, 0, 0, 0, 1]) + frame(1, flags: 0x4, stream: 1, [0x88]) }

    private func framing() throws(ConnectionError) -> HTTP2WebSocketFraming {
        var settings = TransportSettings(maximumFrameSize: 1024, webSocketPath: "/live", webSocketHost: "h:1")
        settings.webSocketText = true
        return try HTTP2WebSocketFraming(role: .client, settings: settings)
    }

    /// Unwraps `chunks` in turn as reads bring them: each WebSocket message whole, and every reply written.
    private func unwrap(
        _ framing: inout HTTP2WebSocketFraming, _ chunks: [[UInt8]], replies: inout [[UInt8]]
    ) throws(ConnectionError) -> [String] {
        var (messages, message) = ([String](), [UInt8]())
        for chunk in chunks {
            var bytes = chunk
            var failure: ConnectionError?
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                do throws(ConnectionError) {
                    while let output = try framing.unwrap(buffer, offset: &offset, reply: { replies.append(Array($0)); return true }) {
                        switch output {
                        case .data(let piece): message += piece
                        case .messageEnd:
                            messages.append(String(decoding: message, as: UTF8.self))
                            message.removeAll()
                        }
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
        return messages
    }

    @Test func messagesSplitAtEveryByteComeOutWholeAndAPingIsAnsweredInADataFrame() throws {
        let first = [UInt8(0x81), 5] + Array("hello".utf8)
        let second = [UInt8(0x81), 6] + Array("world!".utf8)
        let ping = [UInt8(0x89), 2, 0x61, 0x62]
        let stream = opening + frame(0, stream: 1, first + Array(second.prefix(3)))
            + frame(0, flags: 0x8, stream: 1, [2] + Array(second.dropFirst(3)) + [0, 0]) + frame(0, stream: 1, ping)
        for cut in 1..<stream.count {
            var layer = try framing()
            var replies: [[UInt8]] = []
            try layer.start { replies.append(Array($0)); return true }
            let messages = try unwrap(&layer, [Array(stream[..<cut]), Array(stream[cut...])], replies: &replies)
            #expect(messages == ["hello", "world!"], "cut at \(cut)")
            #expect(layer.isEstablished && layer.pingsReceived == 1)
            let pong = try #require(replies.last, "cut at \(cut)")
            // A DATA frame on stream 1 of the masked pong: its header, then 0x8A, masked, 2 bytes, a key, the bytes.
            #expect(pong.count == 9 + 2 + 4 + 2 && pong.prefix(9) == [0, 0, 8, 0, 0, 0, 0, 0, 1] && pong[9] == 0x8A && pong[10] == 0x82,
                "cut at \(cut): \(pong)")
        }
    }

    @Test func whatIsSentStaysWithinTheServersWindowsAndOneFrame() throws {
        var layer = try framing()
        var replies: [[UInt8]] = []
        try layer.start { replies.append(Array($0)); return true }
        _ = try unwrap(&layer, [opening], replies: &replies)
        #expect(!layer.admits(16_371) && layer.refusal(of: 16_371)?.contains("more than one HTTP/2 DATA frame carries") == true)
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: HTTP2WebSocketFraming.scratchSize, alignment: 8)
        let body = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_370, alignment: 8)
        defer { head.deallocate(); body.deallocate() }
        var sent = 0
        while layer.admits(body.count) {
            let size = layer.head(for: body, into: head)
            #expect(size == 9 + 8 && Int(head[0]) << 16 | Int(head[1]) << 8 | Int(head[2]) == 8 + 16_370)
            sent += size - 9 + body.count
        }
        #expect(sent == 4 * (16_370 + 8), "four messages in the connection's first 65,535 bytes")
        #expect(layer.refusal(of: body.count)?.contains("flow-control window is closed") == true)
        _ = try unwrap(&layer, [frame(8, stream: 0, [0, 1, 0, 0]) + frame(8, stream: 1, [0, 1, 0, 0])], replies: &replies)
        #expect(layer.admits(body.count) && layer.refusal(of: body.count) == nil, "the server read, and opened the windows")
    }
}
