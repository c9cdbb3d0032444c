/// What a peer sent, shown to a person: its first bytes, printable ASCII kept and every other byte a `.` (a peer's
/// bytes are untrusted: no control character reaches a terminal or a report), `…` where it was cut.
public enum PeerExcerpt {
    public static func of(_ bytes: UnsafeRawBufferPointer, limit: Int = 80) -> String {
        let shown = bytes.prefix(limit).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: ".") }
        return String(decoding: shown, as: UTF8.self) + (bytes.count > limit ? "…" : "")
    }
}
