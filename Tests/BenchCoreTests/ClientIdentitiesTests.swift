import Testing

@testable import BenchCore

/// `--clients-file`: who each client is, read as untrusted, its variables expanded per client, and carried to children
/// and agents in chunks that read back whole.
@Suite struct ClientIdentitiesTests {
    static let csv = "user,token,team\r\nalice,t-a,1\r\nbob,\"t,b\",2\r\ncarol,t-c,1\r\n"

    @Test func eachClientSpeaksAsItsRowAndTheBuiltInVariablesStay() throws {
        let identities = try ClientIdentities(csv: Self.csv, cycle: false, path: "users.csv")
        #expect(identities.columns == ["user", "token", "team"] && identities.rows.count == 3)
        #expect(identities.expand("Bearer {token} for {user} in {team}, {room}", client: 1) == "Bearer t,b for bob in 2, {room}")
        #expect(identities.expand("{marker}{padding} {client} {\"json\":1}", client: 0) == "{marker}{padding} {client} {\"json\":1}")
        #expect(identities.refusal(clients: 3) == nil)
        #expect(identities.refusal(clients: 4)?.hasPrefix("3 rows for 4 clients") == true)
        let cycling = try ClientIdentities(csv: Self.csv, cycle: true, path: "users.csv")
        #expect(cycling.refusal(clients: 10) == nil && cycling.expand("{user}", client: 4) == "bob")
        #expect(identities.unknownVariables(in: "{user} {usr} {client} {room}") == ["usr"])
        #expect(throws: ClientIdentities.Invalid.self, "{room} stays the chat's") {
            _ = try ClientIdentities(csv: "user,room\na,1\n", cycle: false, path: "f.csv")
        }
        #expect(ClientIdentities.variables(in: "a {b} {c-d} {1x} {\"e\"}") == ["b", "c-d"])
    }

    @Test(arguments: [
        ("", "the file is empty"),
        ("user,token\r\n", "a header row and at least one row are needed"),
        ("user,token\r\nalice\r\n", "row 1 has 1 fields, the header 2"),
        ("user,client\r\na,b\r\n", "the column 'client' is a built-in variable"),
        ("user,1st\r\na,b\r\n", "the column '1st' is not a name"),
        ("user,user\r\na,b\r\n", "a column is named twice"),
        ("user,token\r\na,\"b\nc\"\r\n", "row 1's token has a control character"),
        ("user,token\r\na,\"unclosed\r\n", "not CSV"),
    ])
    func aFileThatCannotSayWhoTheClientsAreIsRefusedSayingWhy(text: String, reason: String) {
        #expect {
            _ = try ClientIdentities(csv: text, cycle: false, path: "f.csv")
        } throws: { error in
            (error as? ClientIdentities.Invalid)?.reason.contains(reason) == true
        }
    }

    @Test func aValueIsNeverReadAsAVariableAndItsSizeIsBounded() throws {
        let identities = try ClientIdentities(columns: ["user", "token"], rows: [["{token}", "t"]], cycle: false)
        #expect(identities.expand("{user}:{token}", client: 0) == "{token}:t", "one pass")
        #expect(identities.longestExpansion(of: "Bearer {token}{token}") == 9)
        #expect(throws: ClientIdentities.Invalid.self) {
            _ = try ClientIdentities(columns: ["token"], rows: [[String(repeating: "x", count: 9_000)]], cycle: false)
        }
    }

    @Test func manyRowsGoInChunksThatReadBackWhole() throws {
        let rows = (0..<5_000).map { ["user\($0)", String(repeating: "t", count: 30) + "\($0)"] }
        let identities = try ClientIdentities(columns: ["user", "token"], rows: rows, cycle: true)
        let chunks = identities.chunks(limit: 60 << 10)
        #expect(chunks.count > 1 && chunks.allSatisfy { $0.count <= 60 << 10 && $0.last == 10 })
        #expect(try ClientIdentities(chunks: chunks, cycle: true) == identities)
        #expect(throws: ClientIdentities.Invalid.self) { _ = try ClientIdentities(chunks: [Array("user\nx\u{1F}y".utf8)], cycle: false) }
    }
}
