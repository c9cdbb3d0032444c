import Testing

@testable import BenchCore

/// `JSONText.isObject`: a flag's value read as JSON's grammar says (RFC 8259), before a protocol sends it as written.
@Suite struct JSONSyntaxTests {
    @Test(arguments: [
        "{}", " { } ", #"{"token":"abc"}"#, #"{"a":[1,-2.5e+3,0,true,false,null,{"b":"\u00e9\n\"\\\/"}],"c":{}}"#,
        #"{"token":"{token}"}"#, "{\"é\":\"ü\"}\n",
    ])
    func anObjectIsOne(text: String) {
        #expect(JSONText.isObject(text))
    }

    @Test(arguments: [
        "", "[]", "1", #""a""#, "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{a:1}"#, #"{"a":01}"#, #"{"a":1.}"#,
        #"{"a":-}"#, #"{"a":1e}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{1}\"}", #"{} {}"#,
        #"{"a":1}x"#, #"{"a":[1,]}"#, #"{"a":"b}"#, #"{"token":{token}}"#,
        String(repeating: "{\"a\":", count: 70) + "1" + String(repeating: "}", count: 70),
    ])
    func anythingElseIsNot(text: String) {
        #expect(!JSONText.isObject(text))
    }
}
