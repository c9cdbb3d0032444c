/// Who each simulated client is (`--clients-file FILE`): a CSV with a header row, one row per client (`user,token,room`,
/// any columns). Each column is a variable, `{user}`, `{token}`, in what a client says for itself: its `--header`
/// fields, the URL's path and query, `--subscribe`, MQTT's and STOMP's user name and password. Client `k` is row `k`
/// (`cycle`: row `k` modulo the rows, when fewer rows than clients are to be reused). A target's publisher is row 0.
///
/// The values are secrets: reports give the file's path and its row count, never a value, and children and agents are
/// sent them over their control channel. Read as untrusted: every row as wide as the header, column names that are
/// names and not the built-in variables, values without a control character (a line break would end a header field).
public struct ClientIdentities: Sendable, Equatable {
    /// The columns, in the file's order.
    public let columns: [String]
    /// The rows, each as wide as `columns`.
    public let rows: [[String]]
    /// Fewer rows than clients are reused in turn (`--clients-file-cycle`).
    public let cycle: Bool
    /// Where they were read from, for reports (empty when they came over a control channel).
    public let path: String
    /// Each column's place in a row.
    private let placeOf: [String: Int]

    /// Why a file of identities cannot be used.
    public struct Invalid: Error, Equatable, Sendable {
        public let reason: String
    }

    /// The variables that are not columns: the built-in ones.
    public static let builtIn: Set<String> = [
        "client", "room", "marker", "padding", "payload", "payload_json", "message_id", "channel", "channel_json",
        "connection_params",
    ]
    /// The most rows read (as many as a run has clients).
    public static var maximumRows: Int { 1_000_000 }
    /// The largest file read: what a client spec carries to children and agents, with room for the rest of it.
    public static var maximumFileSize: Int { 15 << 20 }
    /// The longest value (a header field's), and the longest row (a client spec's field carries whole rows).
    public static var maximumValueSize: Int { 8 << 10 }
    public static var maximumRowSize: Int { 60 << 10 }

    public init(columns: [String], rows: [[String]], cycle: Bool, path: String = "") throws(Invalid) {
        guard !columns.isEmpty, !rows.isEmpty else { throw Invalid(reason: "a header row and at least one row are needed") }
        guard rows.count <= Self.maximumRows else { throw Invalid(reason: "more than \(Self.maximumRows) rows") }
        for name in columns {
            guard let first = name.unicodeScalars.first, first == "_" || Self.isLetter(first),
                name.unicodeScalars.allSatisfy({ Self.isLetter($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" })
            else { throw Invalid(reason: "the column '\(name.prefix(40))' is not a name (letters, digits, _ and -)") }
            guard !Self.builtIn.contains(name) else { throw Invalid(reason: "the column '\(name)' is a built-in variable") }
        }
        guard Set(columns).count == columns.count else { throw Invalid(reason: "a column is named twice") }
        for (index, row) in rows.enumerated() {
            guard row.count == columns.count else {
                throw Invalid(reason: "row \(index + 1) has \(row.count) fields, the header \(columns.count)")
            }
            for (column, value) in zip(columns, row) {
                if value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) {
                    throw Invalid(reason: "row \(index + 1)'s \(column) has a control character")
                }
                guard value.utf8.count <= Self.maximumValueSize else {
                    throw Invalid(reason: "row \(index + 1)'s \(column) is longer than \(Self.maximumValueSize >> 10) KiB")
                }
            }
            guard row.reduce(row.count, { $0 + $1.utf8.count }) <= Self.maximumRowSize else {
                throw Invalid(reason: "row \(index + 1) is longer than \(Self.maximumRowSize >> 10) KiB")
            }
        }
        (self.columns, self.rows, self.cycle, self.path) = (columns, rows, cycle, path)
        placeOf = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
    }

    /// The identities of a CSV file's text.
    public init(csv text: String, cycle: Bool, path: String) throws(Invalid) {
        let table: [[String]]
        do {
            table = try CSVReader.rows(text)
        } catch {
            throw Invalid(reason: "not CSV: \(error)")
        }
        guard let header = table.first else { throw Invalid(reason: "the file is empty") }
        try self.init(columns: header, rows: Array(table.dropFirst()), cycle: cycle, path: path)
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Why `clients` clients cannot each have a row; nil when they can.
    public func refusal(clients: Int) -> String? {
        guard !cycle && rows.count < clients else { return nil }
        return "\(rows.count) rows for \(clients) clients: give a row to each, or --clients-file-cycle to reuse them"
    }

    /// `text` with each `{column}` replaced by client `client`'s value, in one pass (a value is never read as a
    /// variable); other braces are left as they are.
    public func expand(_ text: String, client: Int) -> String {
        guard text.contains("{") else { return text }
        let row = rows[client % rows.count]
        return text.replacing(Self.variable) { match in placeOf[String(match.1)].map { row[$0] } ?? String(match.0) }
    }

    /// The most bytes `text` can take once expanded, whichever client's row it is.
    public func longestExpansion(of text: String) -> Int {
        text.matches(of: Self.variable).reduce(text.utf8.count) { total, match in
            guard let place = placeOf[String(match.1)] else { return total }
            return total - match.0.utf8.count + rows.map { $0[place].utf8.count }.max()!
        }
    }

    /// Every value client rows give to the variables of `text`, for checks where they will go.
    public func values(in text: String) -> [String] {
        Self.variables(in: text).compactMap { placeOf[$0] }.flatMap { place in rows.map { $0[place] } }
    }

    private nonisolated(unsafe) static let variable = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/

    /// The `{name}`s in `text` that are neither a column nor built in: a variable the file does not give.
    public func unknownVariables(in text: String) -> [String] {
        Self.variables(in: text).filter { !columns.contains($0) && !Self.builtIn.contains($0) }
    }

    /// Every `{name}` in `text` whose name could be a column's.
    public static func variables(in text: String) -> [String] {
        text.matches(of: variable).map { String($0.1) }
    }

    // MARK: On a control channel

    /// The rows as chunks of at most `limit` bytes each, whole lines (fields split by 0x1F, lines by LF: no value has
    /// either), the first the header; for a field of a client spec.
    public func chunks(limit: Int = 60 << 10) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var current: [UInt8] = []
        for line in [columns] + rows {
            let bytes = Array(line.joined(separator: "\u{1F}").utf8) + [10]
            if !current.isEmpty && current.count + bytes.count > limit {
                chunks.append(current)
                current = []
            }
            current += bytes
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    /// The identities of `chunks` (as ``chunks(limit:)`` wrote them) from the network: every check above applies.
    public init(chunks: [[UInt8]], cycle: Bool) throws(Invalid) {
        let bytes = chunks.flatMap { $0 }
        guard bytes.last == 10, let text = String(validating: bytes.dropLast(), as: UTF8.self) else {
            throw Invalid(reason: "the identities are not lines of text")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { throw Invalid(reason: "no header") }
        try self.init(columns: header, rows: Array(lines.dropFirst()), cycle: cycle)
    }
}
