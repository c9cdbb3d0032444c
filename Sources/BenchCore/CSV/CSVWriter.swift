/// A streaming RFC 4180 CSV writer.
///
/// Fields are separated by `,`, rows end with CRLF, and a field holding `,`, `"`, CR or LF is quoted with `"`,
/// its quotes doubled. Output collects in a 64 KiB buffer that goes to the sink when full and on ``flush()``;
/// numbers are formatted digit by digit into it, so appending a field allocates nothing once the buffer exists.
public struct CSVWriter<Sink: ByteSink> {
    private static var bufferLimit: Int { 64 << 10 }

    /// Where the bytes go.
    public private(set) var sink: Sink
    private var buffer: [UInt8] = []
    private var atRowStart = true

    /// A writer into `sink`.
    public init(sink: Sink) {
        self.sink = sink
        buffer.reserveCapacity(Self.bufferLimit + 1024)
    }

    /// A text field, quoted when it needs to be.
    public mutating func field(_ text: String) {
        separate()
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10 }
        guard needsQuotes else {
            buffer.append(contentsOf: text.utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// An unsigned integer field.
    public mutating func field(_ value: UInt64) {
        separate()
        DecimalText.appendInteger(value, to: &buffer)
    }

    /// A signed integer field.
    public mutating func field(_ value: Int) {
        separate()
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        DecimalText.appendInteger(value.magnitude.asUInt64, to: &buffer)
    }

    /// Nanoseconds as microseconds with exactly three decimals: 1_234_567 → `1234.567`, 5 → `0.005`.
    public mutating func field(microsecondsFromNanoseconds value: UInt64) {
        separate()
        DecimalText.appendMicroseconds(fromNanoseconds: value, to: &buffer)
    }

    /// A fixed-point decimal field (see ``DecimalText/fixed(_:fractionDigits:)``); empty when not finite.
    public mutating func field(_ value: Double, fractionDigits: Int) {
        separate()
        DecimalText.appendFixed(value, fractionDigits: fractionDigits, to: &buffer)
    }

    /// An empty field: a value that does not exist.
    public mutating func emptyField() {
        separate()
    }

    /// Ends the row; sends the buffer to the sink when it is full.
    public mutating func endRow() throws {
        buffer.append(13)
        buffer.append(10)
        atRowStart = true
        if buffer.count >= Self.bufferLimit { try flush() }
    }

    /// A whole row of text fields.
    public mutating func row(_ fields: [String]) throws {
        for text in fields { field(text) }
        try endRow()
    }

    /// Sends everything buffered to the sink.
    public mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try sink.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private mutating func separate() {
        if atRowStart {
            atRowStart = false
        } else {
            buffer.append(UInt8(ascii: ","))
        }
    }
}

extension UInt {
    fileprivate var asUInt64: UInt64 { UInt64(self) }
}
