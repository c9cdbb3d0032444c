import BenchCore
import Testing

@testable import BenchProtocols

/// Protocols described in lines (`--protocol`), with bytes alone: the description read (and refused with its line
/// and reason), Phoenix Channels, ActionCable and GraphQL (graphql-transport-ws) as the built-in descriptions speak
/// them, each message split at every byte, replies, heartbeats, roles, each message's id, and the server's errors in
/// its words.
@Suite struct DescribedProtocolTests {
    /// What a session did, its deliveries as text.
    private struct Seen {
        var delivered: [String]
        var ready: Int
        var errors: [String]
    }

    /// Feeds each message of `messages` to `session` cut at `cut` (its first bytes, then the rest), then the WebSocket
    /// layer's end of message (no bytes, as the connection gives it).
    private func feed(_ session: ProtocolSession, _ messages: [String], cut: Int? = nil) throws(MessageFramingError) -> Seen {
        var actions = SessionActions()
        for message in messages {
            let bytes = Array(message.utf8)
            let at = min(cut ?? bytes.count, bytes.count)
            try actions.feed(session, Array(bytes[..<at]))
            try actions.feed(session, Array(bytes[at...]))
            try actions.feed(session, [], endsMessage: true)
        }
        return Seen(
            delivered: actions.delivered.map { String(decoding: $0, as: UTF8.self) }, ready: actions.ready,
            errors: actions.errors)
    }

    private func sent(_ session: ProtocolSession) -> [String] {
        var messages: [String] = []
        session.drainOutbox { messages.append(String(decoding: Array($0), as: UTF8.self)) }
        return messages
    }

    private static func builtIn(_ name: String, channel: String) throws -> ProtocolDescription {
        try ProtocolDescription(parsing: ProtocolDescription.builtIn[name]!, name: name).filling(channel: channel)
    }

    private func session(_ description: ProtocolDescription, _ role: SessionRole, maximumMessageSize: Int = 1024) -> ProtocolSession {
        let session = ProtocolSession(.described(description), role: role, maximumMessageSize: maximumMessageSize)
        session.machine.connected(name: "1")
        return session
    }

    static let marker = "#bench-00000000000000ab-00000001-00000002#"

    @Test func phoenixJoinsTheTopicAndIsReadyOnTheJoinsReplyAtEverySplit() throws {
        let phoenix = try Self.builtIn("phoenix", channel: "room:lobby")
        let reply = #"["1","1","room:lobby","phx_reply",{"response":{},"status":"ok"}]"#
        let push = #"[null,null,"room:lobby","new_msg",{"body":"\#(Self.marker)"}]"#
        let heartbeatReply = #"[null,"hb","phoenix","phx_reply",{"response":{},"status":"ok"}]"#
        for cut in 0...push.utf8.count {
            let subscriber = session(phoenix, .subscriber)
            #expect(sent(subscriber) == [#"["1","1","room:lobby","phx_join",{}]"#])
            #expect(try feed(subscriber, [#"[null,null,"room:lobby","presence_state",{}]"#], cut: cut).ready == 0,
                "not the join's reply: passed over")
            let seen = try feed(subscriber, [reply, push, heartbeatReply, push], cut: cut)
            #expect(seen.ready == 1 && subscriber.isReady)
            #expect(seen.delivered == [push, push], "cut at \(cut): the replies are no deliveries")
            #expect(seen.errors.isEmpty && sent(subscriber).isEmpty)
        }
        let subscriber = session(phoenix, .subscriber)
        #expect(subscriber.machine.heartbeatInterval == 30_000_000_000)
        subscriber.machine.heartbeat()
        #expect(sent(subscriber).last == #"[null,"hb","phoenix","heartbeat",{}]"#)
        let publisher = session(phoenix, .publisher)
        #expect(sent(publisher).count == 1, "the publisher joins as well")
        let publication = publisher.machine.publication(of: Array(Self.marker.utf8))
        #expect(String(decoding: publication.bytes, as: UTF8.self)
            == #"["1","p","room:lobby","new_msg",{"body":"\#(Self.marker)"}]"#)
        #expect(String(decoding: publication.bytes[publication.payloadOffset...].prefix(Marker.size), as: UTF8.self) == Self.marker)
    }

    @Test func aPhoenixJoinRefusedIsTheServersErrorInItsWords() throws {
        let subscriber = session(try Self.builtIn("phoenix", channel: "room:secret"), .subscriber)
        let refusal = #"["1","1","room:secret","phx_reply",{"response":{"reason":"unauthorized"},"status":"error"}]"#
        let seen = try feed(subscriber, [refusal])
        #expect(seen.ready == 0 && !subscriber.isReady)
        #expect(seen.errors == ["the server answered " + refusal])
    }

    @Test func actionCableSubscribesAfterTheWelcomeAndIsReadyOnItsConfirmation() throws {
        let cable = try Self.builtIn("actioncable", channel: #"{"channel":"ChatChannel","room":"1"}"#)
        let identifier = #"{\"channel\":\"ChatChannel\",\"room\":\"1\"}"#
        let message = #"{"identifier":"\#(identifier)","message":{"body":"\#(Self.marker)"}}"#
        for cut in [0, 1, 7, 20, message.utf8.count - 1] {
            let subscriber = session(cable, .subscriber)
            #expect(sent(subscriber).isEmpty, "the server speaks first")
            var seen = try feed(subscriber, [#"{"type":"welcome"}"#], cut: cut)
            #expect(sent(subscriber) == [#"{"command":"subscribe","identifier":"\#(identifier)"}"#])
            seen = try feed(subscriber, [
                #"{"type":"ping","message":1764000000}"#, #"{"identifier":"\#(identifier)","type":"confirm_subscription"}"#,
                #"{"type":"ping","message":1764000003}"#, message,
            ], cut: cut)
            #expect(seen.ready == 1 && seen.delivered == [message] && seen.errors.isEmpty, "cut at \(cut)")
        }
        let publication = session(cable, .publisher).machine.publication(of: Array("#m#".utf8))
        #expect(String(decoding: publication.bytes, as: UTF8.self) == #"{"command":"message","identifier":"\#(identifier)","#
            + ##""data":"{\"action\":\"speak\",\"message\":\"#m#\"}"}"##)
        let rejected = session(cable, .subscriber)
        let seen = try feed(rejected, [#"{"type":"welcome"}"#, #"{"identifier":"x","type":"reject_subscription"}"#])
        #expect(seen.errors.count == 1 && !rejected.isReady)
    }

    /// A user's own: a role's own steps, a ping answered (and no delivery), a message beyond the largest refused.
    @Test func aUsersDescriptionWithRolesAndAReply() throws {
        let description = try ProtocolDescription(parsing: """
            # my protocol
            send {"type":"hello","room":"{room}"}
            subscriber send {"type":"join"}
            subscriber expect "joined"
            publisher send {"type":"publisher"}
            reply "type":"ping" => {"type":"pong"}
            publish {"type":"say","text":"{payload}"}
            """, name: "mine.protocol").expanding { $0.replacing("{room}", with: "3") }
        let subscriber = session(description, .subscriber)
        #expect(sent(subscriber) == [#"{"type":"hello","room":"3"}"#, #"{"type":"join"}"#])
        var seen = try feed(subscriber, [#"{"type":"ping"}"#, #"{"type":"joined"}"#, #"{"type":"ping"}"#, "#m#"])
        #expect(sent(subscriber) == [#"{"type":"pong"}"#, #"{"type":"pong"}"#])
        #expect(seen.ready == 1 && seen.delivered == ["#m#"])
        let publisher = session(description, .publisher)
        #expect(sent(publisher) == [#"{"type":"hello","room":"3"}"#, #"{"type":"publisher"}"#] && publisher.isReady)
        seen = try feed(publisher, [])
        #expect(seen.ready == 0, "ready at once, with no action")
        #expect(throws: MessageFramingError.self) {
            _ = try feed(session(description, .subscriber, maximumMessageSize: 16), [String(repeating: "x", count: 5_000)])
        }
    }

    /// `own-copy yes` says the server sends a chat message to its sender too; without it, or with `no`, it does not.
    @Test func ownCopyIsSaidOrNot() throws {
        #expect(try ProtocolDescription(parsing: "own-copy yes", name: "t").sendsOwnCopy)
        #expect(try !ProtocolDescription(parsing: "own-copy no", name: "t").sendsOwnCopy)
        #expect(try !ProtocolDescription(parsing: "send hello", name: "t").sendsOwnCopy)
    }

    @Test(arguments: [
        ("sned hello", "line 1: unknown keyword 'sned' (expected send, expect, reply, capture, heartbeat, publish, error, ignore, "
            + "deliver, close, own-copy or subprotocol)"),
        ("own-copy maybe", "line 1: expected own-copy yes or own-copy no"),
        ("publish {payload}{payload_json}", "line 1: the publish line holds {payload} once, where the payload goes"),
        ("publish {message_id}{payload}{message_id}", "line 1: the publish line holds {message_id} at most once"),
        ("send {payload_json}", "line 1: {payload_json} belongs in the publish line alone"),
        ("expect {message_id}", "line 1: {message_id} belongs in the publish line alone"),
        ("subprotocol a b", "line 1: expected subprotocol NAME, one word of letters, digits and !#$%&'*+-.^_`|~"),
        ("subprotocol a\nsubprotocol b", "line 2: a second subprotocol"),
        ("send a\npublish {\"t\":1}", "line 2: the publish line holds {payload} once, where the payload goes"),
        ("publish {payload}{payload}", "line 1: the publish line holds {payload} once, where the payload goes"),
        ("send {payload}", "line 1: {payload} belongs in the publish line alone"),
        ("reply ping", "line 1: expected reply WHEN => ANSWER"),
        ("heartbeat soon ping", "line 1: expected heartbeat DURATION TEXT, as heartbeat 30s {\"type\":\"ping\"}"),
        ("heartbeat 1ms ping", "line 1: a heartbeat from 100ms to 1h"),
        ("heartbeat 18000000000s ping", "line 1: a heartbeat from 100ms to 1h"),
        ("# c\n\nexpect", "line 3: expect needs a text after it"),
        ("subscriber reply a => b", "line 1: expected send or expect after subscriber"),
        ("publish {payload}\npublish x{payload}", "line 2: a second publish line"),
    ])
    func aDescriptionThatDoesNotReadSaysWhereAndWhy(text: String, reason: String) {
        #expect(throws: ProtocolDescription.Invalid(reason: reason)) { try ProtocolDescription(parsing: text, name: "f") }
    }

    /// A server that speaks before the connection is open (its first message in the read that ended the upgrade) is
    /// passed over unless the first step awaits it (ActionCable's welcome); a description without steps for a role is
    /// ready once open.
    @Test func aMessageBeforeTheConnectionOpenedIsPassedOverUnlessAwaited() throws {
        for text in ["publish {payload}", "publisher send x\npublish {payload}", "send hello\nexpect hi"] {
            let description = try ProtocolDescription(parsing: text, name: "f")
            for role in [SessionRole.subscriber, .publisher] {
                let early = ProtocolSession(.described(description), role: role, maximumMessageSize: 1024)
                #expect(try feed(early, ["hi", "#m#"]).delivered.isEmpty, "\(text), \(role)")
            }
        }
        let cable = try Self.builtIn("actioncable", channel: "{}")
        let welcomed = ProtocolSession(.described(cable), role: .subscriber, maximumMessageSize: 1024)
        _ = try feed(welcomed, [#"{"type":"welcome"}"#])
        welcomed.machine.connected(name: "1")
        #expect(sent(welcomed) == [#"{"command":"subscribe","identifier":"{}"}"#], "the welcome in the upgrade's read")
        let stepless = session(try ProtocolDescription(parsing: "publish {payload}", name: "f"), .subscriber)
        let delivered = try feed(stepless, ["#m#"]).delivered
        #expect(stepless.isReady && delivered == ["#m#"])
    }

    /// A value (a channel, a client's) never makes a second `{payload}` or fills in a variable again.
    @Test func valuesFilledInAreNotFilledInAgain() throws {
        let description = try ProtocolDescription(parsing: "send {channel}|{channel_json}\npublish <{payload}>", name: "f")
            .filling(channel: #"{channel_json}"{payload}"#)
        let subscriber = session(description, .subscriber)
        #expect(sent(subscriber) == [#"{channel_json}"{payload}|{channel_json}\"{payload}"#])
        let publication = session(description.expanding { $0 + "{payload}" }, .publisher).machine.publication(of: Array("#m#".utf8))
        #expect(String(decoding: publication.bytes, as: UTF8.self) == "<{payload}#m#>{payload}")
        #expect(publication.payloadOffset == "<{payload}".utf8.count)
    }

    @Test func theBuiltInsReadAndAskForAChannel() throws {
        for (name, text) in ProtocolDescription.builtIn {
            let description = try ProtocolDescription(parsing: text, name: name)
            #expect(description.asksForChannel, "\(name)")
            #expect(!description.filling(channel: "c").asksForChannel)
            #expect(try ProtocolDescription(parsing: description.source, name: name) == description, "read again")
            let filled = description.filling(channel: #" a => b {"c":1}"#)
            #expect(try ProtocolDescription(parsing: filled.source, name: name).filling(channel: filled.channel!) == filled)
            #expect(filled != description)
        }
        #expect(throws: ProtocolDescription.Invalid.self) {
            try ProtocolDescription(parsing: String(repeating: "# x\n", count: 5_000), name: "big")
        }
    }

    /// GraphQL over graphql-transport-ws as the built-in describes it, against Strawberry's frames: the subprotocol,
    /// connection_init with the connection parameters and its ack, the subscription to the `--channel` document; its
    /// results alone are deliveries (the publisher's own operations' results and completions, pongs, are not); a ping
    /// is answered; an error is the server's, in its words.
    @Test func graphQLSubscribesAfterTheAckAndDeliversTheSubscriptionsResultsAlone() throws {
        let graphQL = try ProtocolDescription(parsing: ProtocolDescription.builtIn["graphql"]!, name: "graphql")
            .filling(channel: #"subscription { messages(room: "lobby") }"#, connectionParameters: #"{"token":"t1"}"#)
        #expect(graphQL.subprotocol == "graphql-transport-ws" && graphQL.payloadEscaping == .json)
        let next = #"{"id":"s","type":"next","payload":{"data":{"messages":"\#(Self.marker)"}}}"#
        let others = [
            #"{"type":"ping"}"#, #"{"id":"0000002a-00000007","type":"next","payload":{"data":{"send":true}}}"#,
            #"{"id":"0000002a-00000007","type":"complete"}"#, #"{"type":"pong"}"#,
        ]
        for cut in 0...next.utf8.count {
            let subscriber = session(graphQL, .subscriber)
            #expect(sent(subscriber) == [#"{"type":"connection_init","payload":{"token":"t1"}}"#])
            var seen = try feed(subscriber, [#"{"type":"connection_ack","payload":null}"#], cut: cut)
            #expect(sent(subscriber) == [
                #"{"id":"s","type":"subscribe","payload":{"query":"subscription { messages(room: \"lobby\") }"}}"#
            ])
            #expect(seen.ready == 1, "ready once subscribed: graphql-transport-ws confirms no subscription")
            seen = try feed(subscriber, others + [next] + others + [next], cut: cut)
            #expect(seen.delivered == [next, next], "cut at \(cut)")
            #expect(sent(subscriber) == [#"{"type":"pong"}"#, #"{"type":"pong"}"#] && seen.errors.isEmpty)
        }
        let publisher = session(graphQL, .publisher)
        #expect(sent(publisher).count == 1, "the publisher's connection_init")
        _ = try feed(publisher, [#"{"type":"connection_ack"}"#])
        #expect(publisher.isReady && sent(publisher).isEmpty, "the publisher subscribes to nothing")
        let error = #"{"id":"s","type":"error","payload":[{"message":"Cannot query field 'x'"}]}"#
        #expect(try feed(publisher, [error]).errors == ["the server answered " + error])
        let subscriber = session(graphQL, .subscriber)
        subscriber.machine.heartbeat()
        #expect(subscriber.machine.heartbeatInterval == 30_000_000_000 && sent(subscriber).last == #"{"type":"ping"}"#)
    }

    /// `{message_id}` before or after the payload: each message's own id (its client and sequence), written with its
    /// marker, and no marker itself (a server that echoes the id to the publisher gives no delivery).
    @Test func eachPublishedMessageHasItsOwnID() throws {
        for text in ["publish {\"id\":\"{message_id}\",\"q\":\"{payload_json}\"}", "publish <{payload}|{message_id}>"] {
            let publisher = session(try ProtocolDescription(parsing: text, name: "f"), .publisher)
            let payload = Array(String(repeating: "#", count: Marker.size).utf8) + Array("xx".utf8)
            let publication = publisher.machine.publication(of: payload)
            for sequence: UInt32 in [7, 0xffff_ffff] {
                var bytes = publication.bytes
                bytes.withUnsafeMutableBytes { message in
                    publication.mark(message, with: Marker(run: 0xab, client: 42, sequence: sequence), at: publication.payloadOffset)
                }
                let written = String(decoding: bytes, as: UTF8.self)
                let id = "0000002a-" + String(repeating: "0", count: 8 - String(sequence, radix: 16).count) + String(sequence, radix: 16)
                let marker = "#bench-00000000000000ab-0000002a-\(id.dropFirst(9))#"
                #expect(written == (text.contains("<")
                    ? "<\(marker)xx|\(id)>" : #"{"id":"\#(id)","q":"\#(marker)xx"}"#), "\(text)")
                #expect(id.withCString { Marker.find(in: UnsafeRawBufferPointer(start: $0, count: id.utf8.count)) } == nil)
            }
        }
    }

    /// A value filled in (a client's, a channel) that holds `{message_id}` or `{payload}` is text: the id and the
    /// payload go where the line put them.
    @Test func aValueThatHoldsAVariableDoesNotMoveTheID() throws {
        let description = try ProtocolDescription(parsing: "publish {channel}|{payload}|{message_id}|{channel}", name: "f")
            .filling(channel: "{message_id}{payload}")
        let publication = session(description, .publisher).machine.publication(of: Array("P".utf8))
        #expect(String(decoding: publication.bytes, as: UTF8.self)
            == "{message_id}{payload}|P|00000000000000000|{message_id}{payload}")
        #expect(publication.payloadOffset == 22 && publication.messageIDOffset == 24)
    }

    /// `deliver`: only a message containing one of its texts is a delivery once ready; `ignore` still applies.
    @Test func deliverTextsChooseTheDeliveries() throws {
        let description = try ProtocolDescription(
            parsing: "deliver \"ch\":\"a\"\ndeliver \"ch\":\"b\"\nignore ping\npublish {payload}", name: "f")
        let subscriber = session(description, .subscriber)
        let seen = try feed(subscriber, [#"{"ch":"a","m":1}"#, #"{"ch":"c"}"#, #"{"ch":"b","ping":1}"#, #"{"ch":"b"}"#])
        #expect(seen.delivered == [#"{"ch":"a","m":1}"#, #"{"ch":"b"}"#])
    }

    /// `{connection_params}` is filled with its value, or `{}` without one; a description without it asks for none.
    @Test func connectionParametersAreFilledInOrEmpty() throws {
        let graphQL = try ProtocolDescription(parsing: ProtocolDescription.builtIn["graphql"]!, name: "graphql")
        #expect(graphQL.asksForConnectionParameters && graphQL.asksForChannel)
        let bare = session(graphQL.filling(channel: "subscription { a }"), .publisher)
        #expect(sent(bare) == [#"{"type":"connection_init","payload":{}}"#])
        let phoenix = try ProtocolDescription(parsing: ProtocolDescription.builtIn["phoenix"]!, name: "phoenix")
        #expect(!phoenix.asksForConnectionParameters)
        let filled = graphQL.filling(channel: "{connection_params}", connectionParameters: #"{"c":"{channel}"}"#)
        #expect(filled.steps[0].text == #"{"type":"connection_init","payload":{"c":"{channel}"}}"#, "not filled in again")
        #expect(try ProtocolDescription(parsing: filled.source, name: "graphql")
            .filling(channel: filled.channel, connectionParameters: filled.connectionParameters) == filled)
    }

    /// XMPP over WebSocket (RFC 7395) as a user described Prosody: an XEP-0199 ping must be answered with its own id,
    /// and Prosody writes its attributes in single quotes where the user's expect had double ones. A capture takes the
    /// id from the ping (`reply` copied nothing before: "{id} is a variable of --clients-file"), and alternatives match
    /// either quote, at every split of the messages.
    @Test func anXMPPPingIsAnsweredWithItsOwnIdAndAnAttributeMatchesInEitherQuote() throws {
        let xmpp = try ProtocolDescription(parsing: """
            send       <open xmlns="urn:ietf:params:xml:ns:xmpp-framing" to="localhost" version="1.0"/>
            expect     code="110" || code='110'
            capture    id='{id}' || id="{id}"
            reply      urn:xmpp:ping => <iq type='result' id='{id}'/>
            publish    <message type='groupchat'><body>{payload_xml}</body></message>
            """, name: "xmpp.protocol")
        #expect(xmpp.captureNames == ["id"] && xmpp.payloadEscaping == .xml)
        let presence = "<presence from='room@muc/me'><x><status code='110'/></x></presence>"
        let ping = "<iq from='localhost' type='get' id='ping-42'><ping xmlns='urn:xmpp:ping'/></iq>"
        let message = "<message type='groupchat'><body>\(Self.marker)</body></message>"
        for cut in 0...ping.utf8.count {
            let subscriber = session(xmpp, .subscriber)
            #expect(sent(subscriber).count == 1)
            let seen = try feed(subscriber, [presence, ping, message], cut: cut)
            #expect(seen.ready == 1 && seen.delivered == [message], "cut at \(cut)")
            #expect(sent(subscriber) == ["<iq type='result' id='ping-42'/>"], "cut at \(cut)")
        }
        // A second ping is answered with its own id, not the first's.
        let subscriber = session(xmpp, .subscriber)
        _ = try feed(subscriber, [presence, ping, ping.replacing("ping-42", with: "ping-43")])
        #expect(sent(subscriber).suffix(2) == ["<iq type='result' id='ping-42'/>", "<iq type='result' id='ping-43'/>"])
    }

    /// A session token the server hands out in the handshake goes into the next step.
    @Test func aValueCapturedInTheHandshakeGoesIntoTheStepsAfterIt() throws {
        let described = try ProtocolDescription(parsing: """
            expect     "type":"hello"
            capture    "session":"{session}"
            send       {"type":"join","session":"{session}"}
            expect     "type":"joined"
            """, name: "token.protocol")
        let subscriber = session(described, .subscriber)
        #expect(sent(subscriber).isEmpty)
        let seen = try feed(subscriber, [#"{"type":"hello","session":"s-7f3a"}"#, #"{"type":"joined"}"#])
        #expect(seen.ready == 1)
        #expect(sent(subscriber) == [#"{"type":"join","session":"s-7f3a"}"#])
    }

    @Test(arguments: [
        ("capture id", "one {NAME} with text on both sides"),
        ("capture {id}'", "one {NAME} with text on both sides"),
        ("capture id='{id}", "one {NAME} with text on both sides"),
        ("capture a='{a}' || b='{b}'", "one name in a capture's alternatives"),
        ("capture x'{room}'", "{room} is filled in by bench"),
    ])
    func aCaptureThatCannotTakeAValueIsRefused(_ line: String, _ reason: String) {
        do {
            _ = try ProtocolDescription(parsing: line, name: "bad")
            Issue.record("'\(line)' was read")
        } catch {
            #expect(error.reason.hasPrefix("line 1: ") && error.reason.contains(reason), "\(error.reason)")
        }
    }

    /// A handshake stuck at a step says which, and the last message that came meanwhile (a run that timed out said
    /// only "0 of 2 subscribers were ready").
    @Test func aStuckHandshakeSaysWhichStepAndTheLastMessage() throws {
        let described = try ProtocolDescription(parsing: """
            send       <open/>
            expect     code="110"
            """, name: "xmpp.protocol")
        let publisher = session(described, .publisher)
        _ = sent(publisher)
        _ = try feed(publisher, ["<presence><status code='110'/></presence>"])
        let state = try #require(publisher.machine.handshakeState)
        #expect(state == #"waiting at step 2 of 2, expect code="110"; the last message: <presence><status code='110'/></presence>"#)
        _ = try feed(publisher, [#"<status code="110"/>"#])
        #expect(publisher.machine.isReady && publisher.machine.handshakeState == nil)
    }

    /// `{client}` is a client's number; the fan-out publisher, which is no client, says `publisher` (it went out as
    /// written before).
    @Test func thePublishersClientIsPublisher() throws {
        let described = try ProtocolDescription(parsing: "send {\"join\":\"room:{client}\"}", name: "own.protocol")
        func sends(_ speech: ServerProtocol, _ role: SessionRole) -> [String] {
            let session = ProtocolSession(speech, role: role, maximumMessageSize: 1024)
            session.machine.connected(name: "1")
            return sent(session)
        }
        #expect(sends(ServerProtocol.described(described).asPublisher, .publisher) == [#"{"join":"room:publisher"}"#])
        #expect(sends(ServerProtocol.described(described).numbered(7), .subscriber) == [#"{"join":"room:7"}"#])
    }

    /// `close TEXT`: a ready connection's last word as the run ends (XMPP's `<close/>`); none before it is ready.
    @Test func aCloseLineIsSaidOnceReadyAsTheRunEnds() throws {
        let described = try ProtocolDescription(parsing: """
            send       <open/>
            expect     <open
            close      <close xmlns="urn:ietf:params:xml:ns:xmpp-framing"/>
            """, name: "xmpp.protocol")
        let early = session(described, .subscriber)
        _ = sent(early)
        early.machine.closing()
        #expect(sent(early).isEmpty, "not ready: nothing to close")
        let ready = session(described, .subscriber)
        _ = sent(ready)
        _ = try feed(ready, ["<open from='localhost'/>"])
        ready.machine.closing()
        #expect(sent(ready) == [#"<close xmlns="urn:ietf:params:xml:ns:xmpp-framing"/>"#])
        #expect(throws: ProtocolDescription.Invalid.self) { try ProtocolDescription(parsing: "close a\nclose b", name: "x") }
    }
}
