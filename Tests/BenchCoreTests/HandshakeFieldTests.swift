import Testing

@testable import BenchCore

/// What a client adds to its HTTP handshakes (`--header`): a field is read as untrusted (from the command line or a
/// run's control channel), and goes out where asked, nowhere else. (The schemes whose protocol rides on WebSocket:
/// `TargetURLTests`.)
@Suite struct HandshakeFieldTests {
    @Test func aFieldIsReadWithItsValueTrimmedAndNamedWithoutIt() throws {
        let field = try HeaderField(parsing: "Authorization:   Bearer abc.def  ")
        #expect(field.name == "Authorization" && field.value == "Bearer abc.def")
        #expect(field.text == "Authorization: Bearer abc.def")
        let cookie = try HeaderField(parsing: "Cookie: a=1; b=\t2")
        #expect([field, cookie].names == "Authorization Cookie", "names only: the values are secrets")
        #expect(try HeaderField(parsing: "X-Empty:").value.isEmpty)
    }

    @Test(arguments: [
        ("Authorization Bearer abc", "expected 'Name: value'"),
        (": value", "is not a header name"),
        ("Bad Name: 1", "is not a header name"),
        ("Ünïcode: 1", "is not a header name"),
        ("host: example.com", "written by the handshake itself"),
        ("Sec-WebSocket-Key: AAAA", "written by the handshake itself"),
        ("Sec-WebSocket-Extensions: permessage-deflate", "written by the handshake itself"),
        ("Content-Length: 9", "written by the handshake itself"),
        ("X-Token: a\r\nHost: evil", "control character"),
        ("X-Token: a\nb", "control character"),
        ("X-Token: a\u{7F}", "control character"),
        ("X-Token: a\u{0}", "control character"),
    ])
    func aFieldThatCannotBeSentIsRefusedSayingWhy(text: String, reason: String) {
        #expect {
            _ = try HeaderField(parsing: text)
        } throws: { error in
            (error as? HeaderField.Invalid)?.reason.contains(reason) == true
        }
    }

    @Test func aFieldLongerThanItsLimitIsRefused() {
        #expect(throws: HeaderField.Invalid.self) {
            _ = try HeaderField(name: "X-Big", value: String(repeating: "a", count: HeaderField.maximumSize))
        }
    }

    @Test func theHandshakeCarriesTheSubprotocolAndTheUsersFieldsAfterItsOwn() {
        let extra = [try! HeaderField(parsing: "Authorization: Bearer t"), try! HeaderField(parsing: "X-Room: 7")]
        let request = WebSocketHandshake.request(host: "h:1", path: "/mqtt", key: "k", subprotocol: "mqtt", extra: extra)
        #expect(request.fields.map(\.name) == [
            "Host", "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol",
            "Authorization", "X-Room",
        ])
        let text = String(decoding: request.bytes, as: UTF8.self)
        #expect(text.hasPrefix("GET /mqtt HTTP/1.1\r\n") && text.hasSuffix("X-Room: 7\r\n\r\n"))
        #expect(text.contains("Sec-WebSocket-Protocol: mqtt\r\nAuthorization: Bearer t\r\n"))
        let plain = WebSocketHandshake.request(host: "h:1", path: "/", key: "k")
        #expect(plain.value(of: "Sec-WebSocket-Protocol") == nil && plain.fields.count == 5)
    }

    @Test func anAnswerWithoutTheSubprotocolAskedForIsRefused() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        var answer = try WebSocketHandshake.answer(
            to: WebSocketHandshake.request(host: "h:1", path: "/mqtt", key: key, subprotocol: "mqtt"), path: "/mqtt")
        let missing = WebSocketHandshake.problem(withAnswer: answer, key: key, subprotocol: "mqtt")
        #expect(missing == "the server did not take the WebSocket subprotocol mqtt (it answered none)")
        answer.fields.append(("sec-websocket-protocol", "MQTT"))
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key, subprotocol: "mqtt") == nil, "case-insensitive")
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) == nil, "not asked: not checked")
    }
}
