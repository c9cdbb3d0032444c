import Testing

@testable import BenchProtocols

/// `protoc --decode_raw`'s text turned into wire bytes, and the marker's place followed into them.
@Suite struct ProtobufTextTests {
    @Test func everyKindOfFieldEncodesAsTheWireFormatSays() throws {
        let (bytes, _) = try ProtobufText.encode(#"1: "lobby" 2: 150 3 { 1: 5 } 4: 0x3f800000 5: -1 6: "a\n\"\x41\101""#)
        #expect(bytes == [0x0A, 5] + Array("lobby".utf8) + [0x10, 0x96, 0x01] + [0x1A, 2, 0x08, 5] + [0x25, 0, 0, 0x80, 0x3F]
            + [0x28, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01] + [0x32, 5, 0x61, 0x0A, 0x22, 0x41, 0x41])
    }

    @Test func theMarkersPlaceIsFollowedIntoNestedMessages() throws {
        let text = #"1: "x" 3 { 2: "ab#MARK" }"#
        let (bytes, offset) = try ProtobufText.encode(text, following: text.utf8.count - 8)
        #expect(offset.map { Array(bytes[$0..<$0 + 5]) } == Array("#MARK".utf8))
        #expect(try ProtobufText.encode(#"1: 5"#, following: 3).offset == nil)  // not inside a string
    }

    @Test(arguments: [
        (#"1: "open"#, "closing quote"), ("0: 1", "field number"), ("1 { 2: 3", "closing }"), ("1: 2 }", "without its {"),
        ("1: lobby", "expected a number"), ("1: 0x123", "fixed32"), ("1:", "no value"), (#"1: "\400""#, "octal"),
        (String(repeating: "1 { ", count: 65), "nested more than 64 deep"),
    ])
    func textsThatAreNoMessageAreRefusedWithAReason(text: String, reason: String) {
        #expect {
            _ = try ProtobufText.encode(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
