import BenchCore

/// What a gRPC connection sends of its own: its publications (the publisher's and a chat member's unary calls, a
/// round trip's messages on its call) within the server's windows, and the headers of every call it makes.
extension GRPCSession {
    public func publication(of payload: [UInt8]) -> Publication {
        publication(of: payload, markerAt: 0).publication
    }

    /// The publisher's or a chat member's unary call (HEADERS, then the request in DATA ending the stream; its stream
    /// given per message, ``willPublish(_:)``), or a round trip's message on its call's stream: `payload` is `--publish`'s text, encoded
    /// (``ProtobufText``), the marker followed from `markerAt` in the text to its place in the bytes.
    public func publication(of payload: [UInt8], markerAt: Int) -> (publication: Publication, markerOffset: Int) {
        let text = String(decoding: payload, as: UTF8.self)
        // The command line checked the text and that its marker is inside a string; should it not encode all the same,
        // the marker alone goes, in field 1, never over the frames' bytes.
        let placeholder = String(repeating: "#", count: Marker.size)
        let (message, offset) = (try? ProtobufText.encode(text, following: markerAt)).flatMap { $0.offset == nil ? nil : $0 }
            ?? (try! ProtobufText.encode("1: \"\(placeholder)\"", following: 4))
        let body = Self.framed(message)
        let keep = offset.map { 5 + $0..<5 + $0 + Marker.size }
        guard publishesByCalls else {
            let data = HTTP2Frame.data(body, stream: Self.callStream, endStream: false, keepingWhole: keep)
            return (Publication(bytes: data.frames, payloadOffset: 0), data.offset ?? 0)
        }
        let headers = HTTP2Frame.headers(requestHeaders(settings.publishMethod ?? settings.method), stream: 1, endStream: false)
        let data = HTTP2Frame.data(body, stream: 1, endStream: true, keepingWhole: keep)
        let bytes = headers + data.frames
        return (Publication(bytes: bytes, payloadOffset: 0), headers.count + (data.offset ?? 0))
    }

    /// Before a publication (marked, about to be written) goes out: false when its DATA does not fit the server's
    /// flow-control windows now, a unary call would pass the streams the server allows open at once, the server goes
    /// away (no new stream), or this connection's stream ids are used up; the caller then counts it as not taken,
    /// as it does a write the socket's queue refuses. A unary call gets its stream, written into each of its frames.
    public func willPublish(_ message: UnsafeMutableRawBufferPointer) -> Bool {
        let data = Self.dataLength(of: message)
        guard publishesByCalls else { return http2.takes(data: data, onCallStream: true) }
        // The server's SETTINGS_MAX_CONCURRENT_STREAMS counts the calls this connection carries and its open unary ones.
        let open = unaryCallsOpen + (role == .subscriber ? calls : 0)
        guard !takesNoNewStreams, nextStream <= 0x7FFF_FFFF, open < http2.maximumConcurrentStreams,
            http2.takes(data: data, onCallStream: false)
        else {
            return false
        }
        unaryCallsOpen += 1
        var start = 0
        while start + 9 <= message.count {
            message[start + 5] = UInt8(truncatingIfNeeded: nextStream >> 24)
            message[start + 6] = UInt8(truncatingIfNeeded: nextStream >> 16)
            message[start + 7] = UInt8(truncatingIfNeeded: nextStream >> 8)
            message[start + 8] = UInt8(truncatingIfNeeded: nextStream)
            start += 9 + (Int(message[start]) << 16 | Int(message[start + 1]) << 8 | Int(message[start + 2]))
        }
        nextStream += 2
        return true
    }

    /// A publication ``willPublish(_:)`` let go was not written after all (the connection's queue was full): what it
    /// took of the windows, and its place among the open calls, are given back (its stream's number is skipped).
    public func publicationNotSent(_ message: UnsafeMutableRawBufferPointer) {
        http2.untakes(data: Self.dataLength(of: message), onCallStream: !publishesByCalls)
        if publishesByCalls && unaryCallsOpen > 0 { unaryCallsOpen -= 1 }
    }

    /// The DATA frames' payloads in a publication's frames.
    private static func dataLength(of message: UnsafeMutableRawBufferPointer) -> Int {
        var data = 0
        var start = 0
        while start + 9 <= message.count {
            let length = Int(message[start]) << 16 | Int(message[start + 1]) << 8 | Int(message[start + 2])
            if message[start + 3] == HTTP2Frame.Kind.data.rawValue { data += length }
            start += 9 + length
        }
        return data
    }

    func requestHeaders(_ method: String) -> [UInt8] {
        HPACK.encode(
            [
                (":method", "POST"), (":scheme", settings.usesTLS ? "https" : "http"), (":path", method),
                (":authority", settings.authority), ("content-type", "application/grpc"), ("te", "trailers"),
                ("user-agent", "bench"),
            ] + settings.metadata.map { ($0.name.lowercased(), $0.value) })
    }
}
