/// Rows of text cells for a terminal, each column as wide as its widest cell: the first `leftAligned` columns (names)
/// padded on the right, the rest (numbers) on the left.
enum TextColumns {
    static func align(_ rows: [[String]], leftAligned: Int) -> [String] {
        let widths = (rows.first ?? []).indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column < leftAligned ? text + padding : padding + text
            }.joined(separator: "  ")
        }
    }
}
