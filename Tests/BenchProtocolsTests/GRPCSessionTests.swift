import BenchCore
import Testing

@testable import BenchProtocols

/// gRPC over HTTP/2 as a subscriber and a publisher speak it, by bytes alone: the server's frames split at every byte,
/// what the session owes in answer, its publications, and every malformed frame refused with a reason.
@Suite struct GRPCSessionTests {
    static let settings = ServerProtocol.GRPCSettings(
        method: "/bench.Relay/Subscribe", authority: "127.0.0.1:50051", subscribe: #"1: "a""#,
        publishMethod: "/bench.Relay/Publish", metadata: [try! HeaderField(name: "X-Token", value: "t")])

    private func frame(_ kind: HTTP2Frame.Kind, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        HTTP2Frame.appendHeader(length: payload.count, kind: kind, flags: flags, stream: stream, to: &bytes)
        return bytes + payload
    }

    private func message(_ text: String) -> [UInt8] {
        GRPCSession.framed(Array(text.utf8))
    }

    /// The server's side of a call: SETTINGS, the acknowledgement of the client's, the response headers, four
    /// messages (two in one frame, one across two frames, one in a padded frame), a PING, and the trailers.
    private var serverStream: [UInt8] {
        let split = message("third, split across two DATA frames")
        let padded = [UInt8(3)] + message("fourth, padded") + [0, 0, 0]
        return frame(.settings, stream: 0, [0, 4, 0, 1, 0, 0])  // SETTINGS_INITIAL_WINDOW_SIZE 65536
            + frame(.settings, flags: HTTP2Frame.acknowledge, stream: 0, [])
            + frame(.headers, flags: HTTP2Frame.endHeaders, stream: 1, [0x88] + HPACK.encode([("content-type", "application/grpc")]))
            + frame(.data, stream: 1, message("first") + message("second"))
            + frame(.data, stream: 1, Array(split[..<9])) + frame(.data, stream: 1, Array(split[9...]))
            + frame(.data, flags: HTTP2Frame.padded, stream: 1, padded)
            + frame(.ping, stream: 0, [1, 2, 3, 4, 5, 6, 7, 8])
    }

    private static let trailers = HPACK.encode([("grpc-status", "0")])

    @Test func aSubscribersCallDeliversEveryMessageAtEverySplitAndAnswersWhatItOwes() throws {
        let stream = serverStream
        let expected = ["first", "second", "third, split across two DATA frames", "fourth, padded"].map { Array($0.utf8) }
        for cut in 1..<stream.count {
            let session = ProtocolSession(.grpc(Self.settings), role: .subscriber, maximumMessageSize: 1024)
            guard case .grpc(let grpc) = session else { return }
            grpc.connected(name: "0")
            let opening = grpc.outbox.pending
            #expect(opening.starts(with: HTTP2Frame.preface))
            grpc.outbox.removeAll()
            var actions = SessionActions()
            try actions.feed(session, Array(stream[..<cut]))
            try actions.feed(session, Array(stream[cut...]))
            #expect(actions.delivered == expected, "cut at \(cut)")
            #expect(actions.ready == 1 && actions.errors.isEmpty)
            #expect(grpc.outbox.pending == HTTP2Frame.settings([], acknowledging: true)
                + HTTP2Frame.ping(0x0102_0304_0506_0708, acknowledging: true), "cut at \(cut)")
        }
    }

    @Test func theRequestCarriesTheMethodTheMetadataAndTheSubscription() throws {
        let session = GRPCSession(Self.settings, role: .subscriber, maximumMessageSize: 1024)
        session.connected(name: "0")
        var bytes = session.outbox.pending
        bytes.removeFirst(HTTP2Connection.opening.count)
        #expect(bytes[3] == HTTP2Frame.Kind.headers.rawValue && bytes[4] == HTTP2Frame.endHeaders)
        let length = Int(bytes[2]) | Int(bytes[1]) << 8
        var decoder = HPACKDecoder()
        var fields: [String] = []
        try Array(bytes[9..<9 + length]).withUnsafeBytes { block in
            try decoder.decode(block) { fields.append(String(decoding: $0, as: UTF8.self) + ": " + String(decoding: $1, as: UTF8.self)) }
        }
        #expect(fields == [
            ":method: POST", ":scheme: http", ":path: /bench.Relay/Subscribe", ":authority: 127.0.0.1:50051",
            "content-type: application/grpc", "te: trailers", "user-agent: bench", "x-token: t",
        ])
        let data = Array(bytes[(9 + length)...].prefix(9 + 8))
        #expect(data == frame(.data, flags: HTTP2Frame.endStream, stream: 1, GRPCSession.framed([0x0A, 0x01, 0x61])))
    }

    @Test func theCallsEndIsTheServersWordsAndClosesTheSubscribersConnection() throws {
        let session = ProtocolSession(.grpc(Self.settings), role: .subscriber, maximumMessageSize: 1024)
        var actions = SessionActions()
        let refusal = HPACK.encode([(":status", "200"), ("grpc-status", "7"), ("grpc-message", "no%20entry")])
        #expect {
            try actions.feed(session, frame(.settings, stream: 0, [])
                + frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 1, refusal))
        } throws: { error in
            "\(error)" == "the server ended the call /bench.Relay/Subscribe: grpc-status 7 PERMISSION_DENIED: no entry"
        }
        #expect(actions.errors == ["/bench.Relay/Subscribe: grpc-status 7 PERMISSION_DENIED: no entry"])
        #expect(actions.ready == 0)
    }

    /// A server's transport answers a PING before its handler runs: a fan-out subscriber waits for the server's headers
    /// (or its first message), a round trip's client, whose messages wait in its call, is ready on the answer.
    @Test func aPingsAnswerMakesARoundTripsClientReadyButNoSubscriber() throws {
        let answered = frame(.settings, stream: 0, []) + frame(.ping, flags: HTTP2Frame.acknowledge, stream: 0, [UInt8](repeating: 0, count: 8))
        let subscriber = ProtocolSession(.grpc(Self.settings), role: .subscriber, maximumMessageSize: 1024)
        var actions = SessionActions()
        try actions.feed(subscriber, answered)
        #expect(actions.ready == 0)
        try actions.feed(subscriber, frame(.data, stream: 1, message("first")))
        #expect(actions.ready == 1 && actions.delivered == [Array("first".utf8)])
        var bidirectional = Self.settings
        bidirectional.bidirectional = true
        let client = ProtocolSession(.grpc(bidirectional), role: .subscriber, maximumMessageSize: 1024)
        actions = SessionActions()
        try actions.feed(client, answered)
        #expect(actions.ready == 1)
    }

    /// What is published stays within the server's windows: a call's DATA larger than a new stream's window (its
    /// SETTINGS_INITIAL_WINDOW_SIZE) is not taken, nor one past what is left of the connection's, until a WINDOW_UPDATE
    /// opens it again; a window opened past 2^31 - 1 is the server's error.
    @Test func publicationsStayWithinTheServersFlowControlWindows() throws {
        let publisher = ProtocolSession(.grpc(Self.settings), role: .publisher, maximumMessageSize: 1024)
        let template = try PublishTemplateText.expand(#"1: "lobby" 2: "{marker}""#)
        let (publication, _) = publisher.machine.publication(of: template.bytes, markerAt: template.markerOffset)
        let data = publication.bytes.count - Int(publication.bytes[2]) - 9 - 9  // the DATA frame's payload
        var bytes = publication.bytes
        var actions = SessionActions()
        // Each new stream's window exactly one publication's DATA; the connection's 65,535 bytes take n of them.
        try actions.feed(publisher, frame(.settings, stream: 0, [0, 4] + [0, 0, UInt8(data >> 8), UInt8(data & 0xFF)]))
        let fits = 65_535 / data
        for _ in 0..<fits { #expect(bytes.withUnsafeMutableBytes { publisher.willPublish($0) }) }
        #expect(!bytes.withUnsafeMutableBytes { publisher.willPublish($0) }, "the connection's window is used up")
        try actions.feed(publisher, frame(.windowUpdate, stream: 0, [0, 0, 0, UInt8(data)]))
        #expect(bytes.withUnsafeMutableBytes { publisher.willPublish($0) })
        let smaller = frame(.settings, stream: 0, [0, 4, 0, 0, 0, UInt8(data - 1)])
        try actions.feed(publisher, smaller + frame(.windowUpdate, stream: 0, [0, 1, 0, 0]))
        #expect(!bytes.withUnsafeMutableBytes { publisher.willPublish($0) }, "over a new stream's window")
        #expect(throws: MessageFramingError.self) { try actions.feed(publisher, frame(.windowUpdate, stream: 0, [0x7F, 0xFF, 0xFF, 0xFF])) }
    }

    /// A unary call per broadcast: each on a stream of its own, rising on its connection (1, 3, 5…), with the
    /// marker inside the request's string field; the answers' trailers are read, a refusal is the server's error.
    @Test func thePublishersCallsEachTakeANewStreamAndTheirRefusalsAreTheServers() throws {
        let publisher = ProtocolSession(.grpc(Self.settings), role: .publisher, maximumMessageSize: 1024)
        let template = try PublishTemplateText.expand(#"1: "lobby" 2: "{marker}""#)
        let (publication, markerOffset) = publisher.machine.publication(of: template.bytes, markerAt: template.markerOffset)
        var bytes = publication.bytes
        bytes.withUnsafeMutableBytes { publication.mark($0, with: Marker(run: 7, client: 9, sequence: 5), at: markerOffset) }
        for _ in 0..<6 { #expect(bytes.withUnsafeMutableBytes { publisher.willPublish($0) }) }  // streams 1, 3, … 11
        let dataFrame = 9 + Int(bytes[2])
        #expect(Array(bytes[5..<9]) == [0, 0, 0, 11] && Array(bytes[dataFrame + 5..<dataFrame + 9]) == [0, 0, 0, 11])
        let marker = bytes.withUnsafeBytes { Marker.find(in: $0) }
        #expect(marker == Marker(run: 7, client: 9, sequence: 5))
        #expect(Array(bytes[markerOffset - 2..<markerOffset]) == [0x12, UInt8(Marker.size)])  // field 2, its length
        var actions = SessionActions()
        try actions.feed(publisher, frame(.settings, stream: 0, []) + frame(.ping, flags: HTTP2Frame.acknowledge, stream: 0, [UInt8](repeating: 0, count: 8))
            + frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 11, HPACK.encode([(":status", "200"), ("grpc-status", "14")])))
        #expect(actions.ready == 1)
        #expect(actions.errors == ["/bench.Relay/Publish: grpc-status 14 UNAVAILABLE"])
    }

    /// A connection that carries three subscribers: three calls (streams 1, 3, 5), ready once the server took all three,
    /// and each message, its frames interleaved with another call's, delivered whole and said to be its call's.
    @Test func aConnectionCarryingThreeCallsSaysWhoseEachDeliveryIsAtEverySplit() throws {
        let first = message("for call 0, across two frames"), second = message("for call 2")
        let stream = frame(.settings, stream: 0, [])
            + frame(.headers, flags: HTTP2Frame.endHeaders, stream: 1, [0x88])
            + frame(.headers, flags: HTTP2Frame.endHeaders, stream: 5, [0x88])
            + frame(.data, stream: 1, Array(first[..<12]))
            + frame(.headers, flags: HTTP2Frame.endHeaders, stream: 3, [0x88])
            + frame(.data, stream: 5, second) + frame(.data, stream: 1, Array(first[12...]))
        for cut in 1..<stream.count {
            let session = ProtocolSession(.grpc(Self.settings).carrying(calls: 3), role: .subscriber, maximumMessageSize: 1024)
            guard case .grpc(let grpc) = session else { return }
            grpc.connected(name: "0")
            let opening = grpc.outbox.pending
            #expect(HTTP2Frame.Kind(rawValue: opening[HTTP2Connection.opening.count + 3]) == .headers)
            var calls: [Int] = [], ready = 0
            for chunk in [Array(stream[..<cut]), Array(stream[cut...])] {
                var bytes = chunk
                try bytes.withUnsafeMutableBytes { buffer in
                    try session.received(buffer, endsMessage: false) { action in
                        if case .delivered = action { calls.append(session.actingCall) }
                        if case .ready = action { ready += 1 }
                    }
                }
            }
            #expect(calls == [2, 0] && ready == 1, "cut at \(cut)")
        }
    }

    /// Of a connection that carries three calls: a server that allows fewer streams at once is refused saying so, and
    /// a refusal of any one call (an HTTP status that is not 200) closes the connection, not the first call's alone.
    @Test func aConnectionOfThreeCallsIsRefusedByTooFewStreamsAndClosedByAnyCallsRefusal() throws {
        let session = ProtocolSession(.grpc(Self.settings).carrying(calls: 3), role: .subscriber, maximumMessageSize: 1024)
        var actions = SessionActions()
        #expect {
            try actions.feed(session, frame(.settings, stream: 0, [0, 3, 0, 0, 0, 2]))
        } throws: { error in
            "\(error)".contains("the server allows 2 streams at once (SETTINGS_MAX_CONCURRENT_STREAMS), fewer than the 3 calls")
        }
        let other = ProtocolSession(.grpc(Self.settings).carrying(calls: 3), role: .subscriber, maximumMessageSize: 1024)
        actions = SessionActions()
        #expect(throws: MessageFramingError.self) {
            try actions.feed(other, frame(.settings, stream: 0, [0, 3, 0, 0, 0, 3])
                + frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 5, HPACK.encode([(":status", "503")])))
        }
        #expect(actions.errors == ["/bench.Relay/Subscribe: HTTP status 503"])
    }

    /// A server that allows two streams at once: a third unary call is not taken until one of the two ended (its
    /// trailers), and a reset one ends too.
    @Test func unaryCallsStayWithinTheStreamsTheServerAllowsAtOnce() throws {
        let publisher = ProtocolSession(.grpc(Self.settings), role: .publisher, maximumMessageSize: 1024)
        let template = try PublishTemplateText.expand(#"2: "{marker}""#)
        var bytes = publisher.machine.publication(of: template.bytes, markerAt: template.markerOffset).publication.bytes
        func publish() -> Bool { bytes.withUnsafeMutableBytes { publisher.willPublish($0) } }
        var actions = SessionActions()
        try actions.feed(publisher, frame(.settings, stream: 0, [0, 3, 0, 0, 0, 2]))
        #expect(publish() && publish())  // streams 1 and 3
        #expect(!publish(), "two open: the third waits")
        try actions.feed(publisher, frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 1, HPACK.encode([("grpc-status", "0")])))
        #expect(publish(), "stream 1 ended: stream 5 opens")
        #expect(!publish())
        try actions.feed(publisher, frame(.resetStream, stream: 3, [0, 0, 0, 7]))
        #expect(publish(), "stream 3 reset: stream 7 opens")
        #expect(actions.errors == ["the server reset call 3 (REFUSED_STREAM)"])
    }

    /// A GOAWAY in order (NO_ERROR): a fan-out subscriber's call the server keeps goes on, the GOAWAY a note; the
    /// publisher opens no call after it and closes once its calls under way ended; a chat member (which needs new
    /// calls), a subscriber whose call is not kept, and a GOAWAY not in order close at once.
    @Test func aGracefulGoAwayLetsKeptCallsGoOnAndClosesWhatNeedsNewOnes() throws {
        func goAway(last: UInt8, code: UInt8 = 0) -> [UInt8] {
            frame(.settings, stream: 0, []) + frame(.goAway, stream: 0, [0, 0, 0, last, 0, 0, 0, code])
        }
        let subscriber = ServerProtocol.grpc(Self.settings).asFanoutSubscriber
        let kept = ProtocolSession(subscriber, role: .subscriber, maximumMessageSize: 1024)
        var actions = SessionActions()
        try actions.feed(kept, goAway(last: 1) + frame(.data, stream: 1, message("after")))
        #expect(actions.delivered == [Array("after".utf8)] && actions.errors.isEmpty)
        #expect(actions.notes == ["the server sent GOAWAY (NO_ERROR); its last stream 1: what it keeps goes on, no new call opens"])

        let publisher = ProtocolSession(.grpc(Self.settings), role: .publisher, maximumMessageSize: 1024)
        let template = try PublishTemplateText.expand(#"2: "{marker}""#)
        var bytes = publisher.machine.publication(of: template.bytes, markerAt: template.markerOffset).publication.bytes
        actions = SessionActions()
        try actions.feed(publisher, frame(.settings, stream: 0, []))
        #expect(bytes.withUnsafeMutableBytes { publisher.willPublish($0) })  // stream 1, under way
        try actions.feed(publisher, frame(.goAway, stream: 0, [0, 0, 0, 1, 0, 0, 0, 0]))
        #expect(!bytes.withUnsafeMutableBytes { publisher.willPublish($0) }, "no new call after GOAWAY")
        #expect {
            try actions.feed(publisher, frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 1, HPACK.encode([("grpc-status", "0")])))
        } throws: { error in
            "\(error)" == "the server went away in order (GOAWAY NO_ERROR) and the last call ended"
        }
        for (speech, bytes) in [
            (ServerProtocol.grpc(Self.settings), goAway(last: 1)),  // a chat member: its messages are calls
            (subscriber, goAway(last: 0)),
            (subscriber, goAway(last: 1, code: 2)),
        ] {
            var seen = SessionActions()
            let session = ProtocolSession(speech, role: .subscriber, maximumMessageSize: 1024)
            #expect(throws: MessageFramingError.self) { try seen.feed(session, bytes) }
        }
    }

    /// A publication let go but not written (the connection's queue was full) gives back what it took: its place among
    /// the streams at once and its share of the windows; a RST_STREAM NO_ERROR after a call's trailers ends nothing
    /// twice and is no error.
    @Test func aPublicationNotSentGivesBackItsStreamAndWindow() throws {
        let publisher = ProtocolSession(.grpc(Self.settings), role: .publisher, maximumMessageSize: 1024)
        let template = try PublishTemplateText.expand(#"2: "{marker}""#)
        var bytes = publisher.machine.publication(of: template.bytes, markerAt: template.markerOffset).publication.bytes
        func publish() -> Bool { bytes.withUnsafeMutableBytes { publisher.willPublish($0) } }
        var actions = SessionActions()
        try actions.feed(publisher, frame(.settings, stream: 0, [0, 3, 0, 0, 0, 1]))  // one stream at a time
        #expect(publish())
        bytes.withUnsafeMutableBytes { publisher.publicationNotSent($0) }
        #expect(publish(), "the one not sent gave its stream back")
        try actions.feed(publisher, frame(.headers, flags: HTTP2Frame.endHeaders | HTTP2Frame.endStream, stream: 3, HPACK.encode([("grpc-status", "0")]))
            + frame(.resetStream, stream: 3, [0, 0, 0, 0]))
        #expect(publish() && !publish(), "stream 3 ended once: one call again, not two")
        #expect(actions.errors.isEmpty)
    }

    /// A chat member's messages are unary calls of its own beside its room's call: streams 3, 5, … on its connection.
    @Test func aChatMembersMessagesAreCallsOnStreamsAfterItsRoomsCall() throws {
        let member = ProtocolSession(.grpc(Self.settings).room(4), role: .subscriber, maximumMessageSize: 1024)
        let template = try PublishTemplateText.expand(#"1: "room-4" 2: "{marker}""#)
        let (publication, _) = member.machine.publication(of: template.bytes, markerAt: template.markerOffset)
        var bytes = publication.bytes
        #expect(bytes[3] == HTTP2Frame.Kind.headers.rawValue, "a call of its own, not DATA on the room's call")
        #expect(bytes.withUnsafeMutableBytes { member.willPublish($0) } && bytes.withUnsafeMutableBytes { member.willPublish($0) })
        #expect(Array(bytes[5..<9]) == [0, 0, 0, 5])
    }

    @Test(arguments: [
        ([0, 0x40, 1, 4, 0, 0, 0, 0, 0], "FRAME_SIZE_ERROR"),  // 16,385 bytes
        ([0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8], "the server's first frame is not SETTINGS"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0], "WINDOW_UPDATE of 0"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 11, 7, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 3, 0x62, 0x79, 0x65], "GOAWAY (FLOW_CONTROL_ERROR: bye); its last stream 3"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 1, 4, 0, 0, 0, 1, 0xBE], "COMPRESSION_ERROR"),  // index 62, no such entry
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 9, 4, 0, 0, 0, 1, 0x88], "CONTINUATION without HEADERS"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 4, 0x80, 0, 0, 0], "SETTINGS_INITIAL_WINDOW_SIZE"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1], "a compressed gRPC message"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 4, 3, 0, 0, 0, 0, 1, 0, 0, 0, 8], "the server reset the call (CANCEL)"),
        ([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1], "SETTINGS_ENABLE_PUSH of 1 from a server"),
        ([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1], "without trailers"),
        ([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 4, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 4, 8, 0, 0, 0, 0, 1, 0, 0, 0, 1], "FLOW_CONTROL_ERROR"),
    ] as [([UInt8], String)])
    func malformedOrFatalFramesAreRefusedWithAReason(stream: [UInt8], reason: String) {
        let session = ProtocolSession(.grpc(Self.settings), role: .subscriber, maximumMessageSize: 1024)
        var actions = SessionActions()
        #expect {
            try actions.feed(session, stream)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}

/// `--publish` expanded as the publisher expands it, for the tests.
enum PublishTemplateText {
    static func expand(_ text: String) throws -> (bytes: [UInt8], markerOffset: Int) {
        let placeholder = String(repeating: "#", count: Marker.size)
        let expanded = text.replacing("{marker}", with: placeholder)
        let offset = expanded.utf8.firstRange(of: placeholder.utf8).map { expanded.utf8.distance(from: expanded.utf8.startIndex, to: $0.lowerBound) }!
        return (Array(expanded.utf8), offset)
    }
}
