import BenchCore

/// The reading side of Server-Sent Events over HTTP/1.1, as a subscriber of an `sse://` target receives them: the
/// response's head (200 wanted; chunked transfer encoding or not), then the event stream parsed by the spec (WHATWG
/// HTML, 9.2): lines ending in CRLF, LF or CR; `data:` lines joined with newlines into the event's data, which is
/// dispatched at a blank line; `id:`, `event:`, `retry:` and comments (`:`) read and ignored. And the publisher's side:
/// the responses to its POSTs, each a head and a body skipped (Content-Length or chunked), anything but 2xx an error.
///
/// Everything is bounded: a head past 16 KiB, a line or an event past the run's largest message, a chunk size that is
/// not hexadecimal are errors, never a trap. Buffers are made once per connection and reused.
final class HTTPEventStream {
    enum Role { case subscriber, publisher }

    let role: Role
    private let maximumSize: Int
    /// The head being read (and, for the publisher, of each response).
    private var head = HTTPHeadReader(maximumSize: HTTPEventStream.headLimit)
    private var inBody = false
    private var chunked = false
    /// Chunked: bytes left of the current chunk's data; -1 while its size line is read, -2 while the CRLF after its
    /// data is skipped, -3 after an event stream's last chunk, -4 while a response's trailer fields are skipped (up to
    /// their empty line).
    private var chunkLeft = -1
    private var sizeLine: [UInt8] = []
    /// Bytes of the trailer line being skipped (0: none yet, so an LF now ends the trailer).
    private var trailerLine = 0
    /// The publisher: body bytes of the current response still to skip (Content-Length).
    private var bodyLeft = 0
    /// The subscriber: the current line, the current event's data, and a CR just ended a line (an LF after it is part
    /// of the same ending).
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var afterCR = false
    /// The subscriber: the stream's response was 200 and its events flow.
    private(set) var isOpen = false

    static let headLimit = 16 << 10

    init(role: Role, maximumMessageSize: Int) {
        self.role = role
        self.maximumSize = maximumMessageSize
        // Grown to the largest line and event once, then reused: 20,000 streams do not each hold the largest message.
        line.reserveCapacity(256)
        data.reserveCapacity(256)
    }

    /// Takes what one read brought; calls `onEvent` for each event dispatched (its data), for the stream's opening
    /// (`.ready`) and for an HTTP status that is not what was asked (`.serverError`).
    func consume(_ bytes: UnsafeRawBufferPointer, _ onEvent: (SessionAction) -> Void) throws(MessageFramingError) {
        var index = 0
        while index < bytes.count {
            if !inBody {
                index = try readHead(bytes, from: index, onEvent)
                continue
            }
            if !chunked {
                index = try body(bytes, index..<bytes.count, onEvent)
                continue
            }
            if chunkLeft == -1 {  // the size line
                let byte = bytes[index]
                index += 1
                if byte == 10 { try startChunk() } else if byte != 13 { try grow(&sizeLine, byte, 64, "a chunk size line") }
            } else if chunkLeft == -2 {  // the CRLF after a chunk's data
                if bytes[index] == 10 { chunkLeft = -1 }
                index += 1
            } else if chunkLeft == -3 {  // after the last chunk of a stream: nothing more is read
                return
            } else if chunkLeft == -4 {  // a trailer's lines: an empty one ends the response
                let byte = bytes[index]
                index += 1
                if byte == 10 {
                    if trailerLine == 0 { inBody = false }
                    trailerLine = 0
                } else if byte != 13 {
                    trailerLine += 1
                    guard trailerLine <= Self.headLimit else {
                        throw MessageFramingError(description: "a trailer line longer than \(Self.headLimit / 1024) KiB")
                    }
                }
            } else {
                let end = min(bytes.count, index + chunkLeft)
                chunkLeft -= end - index
                index = try body(bytes, index..<end, onEvent)
                if chunkLeft == 0 { chunkLeft = -2 }
            }
        }
    }

    /// The subscriber's stream opened elsewhere (an HTTP/2 response, ``HTTP2Tunnel``): what comes is the body alone.
    func openBody() {
        (inBody, chunked, isOpen) = (true, false, true)
    }

    // MARK: Head

    /// Reads the head up to its blank line, parsed as HTTP says (``HTTPHeadReader``): then checks the status, and how
    /// the body is delimited (``HTTPBodyLength``): an event stream until the server closes it, or chunked; a POST's
    /// response by its length or chunked, as a connection that carries the next one must.
    private func readHead(
        _ bytes: UnsafeRawBufferPointer, from start: Int, _ onEvent: (SessionAction) -> Void
    ) throws(MessageFramingError) -> Int {
        guard start < bytes.count else { return start }
        let read: (head: HTTPHead, used: Int)?
        do {
            read = try head.consume(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        } catch {
            throw MessageFramingError(description: error == .tooLong(limit: Self.headLimit)
                ? "an HTTP head longer than \(Self.headLimit / 1024) KiB" : "\(error)")
        }
        guard let (response, used) = read else { return bytes.count }
        head.reset()
        let length: HTTPBodyLength
        do {
            length = try HTTPBodyLength(response: response)
        } catch {
            throw MessageFramingError(description: "\(error)")
        }
        let status = HTTPBodyLength.status(of: response) ?? 0
        if (100..<200).contains(status) && status != 101 { return start + used }  // an interim response: the real one follows
        chunked = length == .chunked
        if case .length(let count) = length { bodyLeft = count } else { bodyLeft = 0 }
        (inBody, chunkLeft) = (true, -1)
        switch role {
        case .subscriber:
            guard status == 200 else {
                onEvent(.serverError("the event stream answered \(response.startLine.prefix(200))"))
                return bytes.count
            }
            isOpen = true
            onEvent(.ready)
        case .publisher:
            if !(200..<300).contains(status) { onEvent(.serverError("a POST was answered \(response.startLine.prefix(200))")) }
            if length == .untilClose {
                throw MessageFramingError(
                    description: "a POST was answered with neither Content-Length nor chunked: its body would end only "
                        + "with the connection, which carries the next POST")
            }
            if !chunked && bodyLeft == 0 { inBody = false }
        }
        return start + used
    }

    // MARK: Body

    /// Body bytes (de-chunked): the subscriber's event stream, or the publisher's response body skipped; returns the
    /// index after what it took.
    private func body(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ onEvent: (SessionAction) -> Void
    ) throws(MessageFramingError) -> Int {
        switch role {
        case .publisher:
            if chunked { return range.upperBound }
            let taken = min(bodyLeft, range.count)
            bodyLeft -= taken
            if bodyLeft == 0 { inBody = false }
            return range.lowerBound + taken
        case .subscriber:
            for index in range { try take(bytes[index], onEvent) }
            return range.upperBound
        }
    }

    /// One byte of the event stream.
    @inline(__always)
    private func take(_ byte: UInt8, _ onEvent: (SessionAction) -> Void) throws(MessageFramingError) {
        switch byte {
        case 10 where afterCR:
            afterCR = false
        case 10, 13:
            afterCR = byte == 13
            try endLine(onEvent)
        default:
            afterCR = false
            try grow(&line, byte, maximumSize + 64, "an event stream line")
        }
    }

    /// A whole line: a blank one dispatches the event, `data:` adds to it, the rest is ignored.
    private func endLine(_ onEvent: (SessionAction) -> Void) throws(MessageFramingError) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            if hasData { data.withUnsafeBytes { onEvent(.delivered($0)) } }
            data.removeAll(keepingCapacity: true)
            hasData = false
            return
        }
        guard line.count >= 4, line[0] == 0x64, line[1] == 0x61, line[2] == 0x74, line[3] == 0x61,  // "data"
            line.count == 4 || line[4] == 0x3A  // "data" or "data:…"
        else { return }
        var start = min(5, line.count)
        if start < line.count && line[start] == 0x20 { start += 1 }
        if hasData { try grow(&data, 10, maximumSize, "an event's data") }
        hasData = true
        guard data.count + line.count - start <= maximumSize else {
            throw MessageFramingError(description: "an event's data longer than \(maximumSize) bytes")
        }
        data.append(contentsOf: line[start...])
    }

    private func startChunk() throws(MessageFramingError) {
        defer { sizeLine.removeAll(keepingCapacity: true) }
        let digits = sizeLine.prefix { $0 != 0x3B }  // before any chunk extension
        guard !digits.isEmpty, digits.count <= 8, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
            throw MessageFramingError(description: "a chunk size that is not hexadecimal")
        }
        guard size == 0 else { return chunkLeft = size }
        // The last chunk: a publisher's response ends after its trailer (fields, if any, then an empty line); an event
        // stream is over.
        if role == .publisher { (chunkLeft, trailerLine) = (-4, 0) } else { chunkLeft = -3 }
    }

    private func grow(_ buffer: inout [UInt8], _ byte: UInt8, _ limit: Int, _ what: String) throws(MessageFramingError) {
        guard buffer.count < limit else { throw MessageFramingError(description: "\(what) longer than \(limit) bytes") }
        buffer.append(byte)
    }
}
