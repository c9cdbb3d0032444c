import BenchCore

/// One STOMP 1.2 frame as the server sends it, found in place: its command, where its headers and body lie, where it
/// ends (past its NUL). Lines end in LF or CR LF; the body runs for `content-length` bytes where the header gives it
/// (a NUL may then be in it), else to the first NUL. Everything from the server is untrusted: a head longer than
/// 64 KiB, a body larger than the run's messages, a `content-length` that is no number or a body not ended by NUL is
/// refused with the reason, never a trap.
struct STOMPFrame {
    enum Command {
        case message, connected, receipt, error, other
    }

    let command: Command
    /// The header lines, from the first after the command to the blank line.
    let headers: Range<Int>
    let body: Range<Int>
    /// Just past the frame's NUL.
    let end: Int

    /// The longest head (command and headers) taken.
    static var maximumHeadSize: Int { 64 << 10 }

    /// The frame starting at `start`, nil while it is incomplete.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, from start: Int, maximumBodySize: Int
    ) throws(MessageFramingError) -> STOMPFrame? {
        // The head ends at the first empty line.
        var lineStart = start
        var commandEnd: Int?
        var headEnd: Int?
        var bodyStart = 0
        var index = start
        while index < bytes.count {
            if bytes[index] == 10 {
                let lineEnd = index > lineStart && bytes[index - 1] == 13 ? index - 1 : index
                if commandEnd == nil {
                    commandEnd = lineEnd
                } else if lineEnd == lineStart {
                    headEnd = lineStart
                    bodyStart = index + 1
                    break
                }
                lineStart = index + 1
            }
            index += 1
        }
        guard let commandEnd, let headEnd else {
            if bytes.count - start > maximumHeadSize { throw MessageFramingError(description: "a STOMP frame's head longer than 64 KiB") }
            return nil
        }
        guard headEnd - start <= maximumHeadSize else {
            throw MessageFramingError(description: "a STOMP frame's head longer than 64 KiB")
        }
        let headers = min(commandEnd + 1, headEnd)..<headEnd
        let command = Self.command(bytes, start, commandEnd)
        let bodyEnd: Int
        if let length = try contentLength(bytes, in: headers) {
            guard length <= maximumBodySize else {
                throw MessageFramingError(description: "a STOMP frame's body of \(length) bytes, more than the run's messages")
            }
            guard bytes.count > bodyStart + length else { return nil }  // the body and its NUL are coming
            guard bytes[bodyStart + length] == 0 else {
                throw MessageFramingError(description: "a STOMP frame's body not ended by NUL after its content-length")
            }
            bodyEnd = bodyStart + length
        } else {
            guard let nul = (bodyStart..<bytes.count).first(where: { bytes[$0] == 0 }) else {
                if bytes.count - bodyStart > maximumBodySize {
                    throw MessageFramingError(description: "a STOMP frame's body larger than the run's messages")
                }
                return nil
            }
            bodyEnd = nul
        }
        return STOMPFrame(command: command, headers: headers, body: bodyStart..<bodyEnd, end: bodyEnd + 1)
    }

    private static func command(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Command {
        if ByteScan.hasPrefix("MESSAGE", bytes, start, end) && end - start == 7 { return .message }
        if ByteScan.hasPrefix("CONNECTED", bytes, start, end) && end - start == 9 { return .connected }
        if ByteScan.hasPrefix("RECEIPT", bytes, start, end) && end - start == 7 { return .receipt }
        if ByteScan.hasPrefix("ERROR", bytes, start, end) && end - start == 5 { return .error }
        return .other
    }

    /// The first `content-length` header's value (STOMP 1.2: the first of a repeated header counts); nil without one.
    private static func contentLength(_ bytes: UnsafeRawBufferPointer, in headers: Range<Int>) throws(MessageFramingError) -> Int? {
        guard let (valueStart, valueEnd) = value(of: "content-length:", bytes, in: headers) else { return nil }
        guard valueEnd > valueStart, valueEnd - valueStart <= 10, let length = ByteScan.decimal(bytes, valueStart, valueEnd) else {
            throw MessageFramingError(description: "a STOMP frame's content-length is not a number")
        }
        return length
    }

    /// Where the value of the first header line starting with `name` (its colon included) lies.
    private static func value(
        of name: StaticString, _ bytes: UnsafeRawBufferPointer, in headers: Range<Int>
    ) -> (start: Int, end: Int)? {
        var lineStart = headers.lowerBound
        while lineStart < headers.upperBound {
            var lineEnd = lineStart
            while lineEnd < headers.upperBound && bytes[lineEnd] != 10 { lineEnd += 1 }
            let valueEnd = lineEnd > lineStart && bytes[lineEnd - 1] == 13 ? lineEnd - 1 : lineEnd
            if ByteScan.hasPrefix(name, bytes, lineStart, valueEnd) { return (lineStart + name.utf8CodeUnitCount, valueEnd) }
            lineStart = lineEnd + 1
        }
        return nil
    }

    /// A RECEIPT's `receipt-id`.
    func receiptID(in bytes: UnsafeRawBufferPointer) -> String? {
        Self.value(of: "receipt-id:", bytes, in: headers).map { String(decoding: bytes[$0.start..<$0.end], as: UTF8.self) }
    }

    /// An ERROR's words: its `message` header, and the start of its body.
    func errorText(in bytes: UnsafeRawBufferPointer) -> String {
        let message = Self.value(of: "message:", bytes, in: headers).map {
            String(decoding: bytes[$0.start..<min($0.end, $0.start + 200)], as: UTF8.self)
        }
        let detail = String(decoding: bytes[body.lowerBound..<min(body.upperBound, body.lowerBound + 200)], as: UTF8.self)
        // The broker's words, without the control characters (a terminal's escapes) it may have put in them.
        let words = [message, detail].compactMap { $0 }.map { text in
            text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : String($0) }.joined()
                .split(separator: " ").joined(separator: " ")
        }
        return "STOMP ERROR: " + words.filter { !$0.isEmpty }.joined(separator: ": ")
    }
}
