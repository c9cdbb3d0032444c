import Testing

@testable import BenchProtocols

/// HPACK by bytes alone (RFC 7541): Appendix C's examples decoded, their dynamic tables as the RFC lists them, Huffman
/// strings both ways, and what a server must not send refused with a reason.
@Suite struct HPACKTests {
    private func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    private func decode(_ block: [UInt8], with decoder: inout HPACKDecoder) throws(HPACKError) -> [String] {
        var fields: [String] = []
        var failure: HPACKError?
        block.withUnsafeBytes { block in
            do throws(HPACKError) {
                try decoder.decode(block) { name, value in
                    fields.append(String(decoding: name, as: UTF8.self) + ": " + String(decoding: value, as: UTF8.self))
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return fields
    }

    static let requests = [
        [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"],
        [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache"],
        [":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value"],
    ]

    /// C.3 (literals) and C.4 (Huffman): three requests on one connection, the table growing from each.
    @Test(arguments: [
        ["828684410f7777772e6578616d706c652e636f6d", "828684be58086e6f2d6361636865",
         "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565"],
        ["828684418cf1e3c2e5f23a6ba0ab90f4ff", "828684be5886a8eb10649cbf",
         "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf"],
    ])
    func appendixCRequestsDecodeWithTheirDynamicTable(blocks: [String]) throws {
        var decoder = HPACKDecoder()
        for (block, expected) in zip(blocks, Self.requests) {
            #expect(try decode(bytes(block), with: &decoder) == expected)
        }
        #expect(decoder.dynamicEntries.map { "\($0.name): \($0.value)" }
            == ["custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com"])
        #expect(decoder.size == 164)
    }

    /// C.6: three responses with Huffman in a 256-byte table, entries evicted oldest first.
    @Test func appendixCResponsesEvictTheOldestEntries() throws {
        var decoder = HPACKDecoder(allowedSize: 256)
        let blocks = [
            "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3",
            "4883640effc1c0bf",
            "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af2708"
                + "7f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007",
        ]
        let date = "date: Mon, 21 Oct 2013 20:13:21 GMT", location = "location: https://www.example.com"
        #expect(try decode(bytes(blocks[0]), with: &decoder) == [":status: 302", "cache-control: private", date, location])
        #expect(try decode(bytes(blocks[1]), with: &decoder) == [":status: 307", "cache-control: private", date, location])
        let cookie = "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
        #expect(try decode(bytes(blocks[2]), with: &decoder) == [
            ":status: 200", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:22 GMT", location,
            "content-encoding: gzip", cookie,
        ])
        #expect(decoder.dynamicEntries.map { "\($0.name): \($0.value)" }
            == [cookie, "content-encoding: gzip", "date: Mon, 21 Oct 2013 20:13:22 GMT"])
        #expect(decoder.size == 215)
    }

    /// Huffman both ways: C.4's strings encode to the RFC's bytes, and every byte value survives the round trip.
    @Test func huffmanStringsEncodeAsTheRFCsAndEveryByteComesBack() throws {
        var coded: [UInt8] = []
        HPACKHuffman.encode(Array("www.example.com".utf8), into: &coded)
        #expect(coded == bytes("f1e3c2e5f23a6ba0ab90f4ff"))
        coded = []
        HPACKHuffman.encode(Array("custom-value".utf8), into: &coded)
        #expect(coded == bytes("25a849e95bb8e8b4bf"))
        let every = (0...255).map(UInt8.init) + Array("no-cache".utf8)
        coded = []
        HPACKHuffman.encode(every, into: &coded)
        #expect(coded.count == HPACKHuffman.encodedCount(every))
        var decoded: [UInt8] = []
        try coded.withUnsafeBytes { try HPACKHuffman.decode($0, into: &decoded) }
        #expect(decoded == every)
    }

    /// This side's header blocks (literals without indexing, Huffman where shorter) decode to what went in, and leave
    /// the server's table empty.
    @Test func thisSidesHeaderBlocksDecodeBackAndIndexNothing() throws {
        let fields = [(":method", "POST"), (":path", "/bench.Relay/Subscribe"), ("x-token", "secret"), ("te", "trailers")]
        var decoder = HPACKDecoder()
        #expect(try decode(HPACK.encode(fields), with: &decoder) == fields.map { "\($0.0): \($0.1)" })
        #expect(decoder.dynamicEntries.isEmpty)
    }

    @Test(arguments: [
        ("be", "beyond"),  // index 62 with an empty dynamic table
        ("80", "beyond"),  // index 0
        ("3fe21f", "over the 4096 allowed"),  // a table size update to 4,097: over what this side allows
        ("418cf1e3c2e5f23a6ba0", "longer than its header block"),
        ("41ff", "ends inside an integer"),
        ("418cffffffffffffffffffffffff", "EOS"),  // 12 bytes of ones: EOS inside the string
        ("4181fe", "padding"),  // the last bits are not EOS's
        ("8220", "after a field"),  // a table size update after a field
        ("007f80808080808080808001", "over 2^28"),  // a length whose continuation bytes would shift past 64 bits
    ])
    func malformedBlocksAreRefusedWithAReason(block: String, reason: String) {
        var decoder = HPACKDecoder()
        #expect {
            _ = try decode(bytes(block), with: &decoder)
        } throws: { error in
            (error as? HPACKError)?.description.contains(reason) == true
        }
    }
}
