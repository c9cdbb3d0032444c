/// Cuts a TCP byte stream into frames, however the stream was split or coalesced on the way.
///
/// Feed it every chunk a `read` returned, in order. Complete frames that lie wholly inside a chunk are handed
/// to the callback in place, without copying; only the bytes of a frame cut by a chunk boundary are carried
/// over in a buffer of the decoder's own, which grows at most to the largest frame accepted and is then
/// reused. A frame header is checked as soon as its five bytes (length and kind) are there, so a peer that
/// announces an absurd length is refused before anything is allocated for it.
public struct FrameDecoder {
    /// Length field plus kind byte: what must be seen before a frame can be checked.
    private static let headerSize = WireFormat.lengthFieldSize + 1

    /// The largest frame, length field included, that this decoder accepts.
    public private(set) var maximumFrameSize: Int

    /// Bytes of an incomplete frame carried over from earlier chunks.
    private var pending: [UInt8] = []
    /// Kind and total size of the frame in `pending`, once its header is complete.
    private var pendingHeader: (kind: FrameKind, size: Int)?

    /// Creates a decoder that refuses frames larger than `maximumFrameSize` bytes (length field included), with room
    /// for a cut frame of up to `pendingCapacity` bytes set aside now (0: made the first time a frame is cut).
    public init(maximumFrameSize: Int, pendingCapacity: Int = 0) {
        precondition(maximumFrameSize >= WireFormat.minimumMessageSize)
        precondition(maximumFrameSize <= WireFormat.maximumFrameSize)
        self.maximumFrameSize = maximumFrameSize
        if pendingCapacity > 0 { pending.reserveCapacity(min(pendingCapacity, maximumFrameSize)) }
    }

    /// Accepts frames up to `size` bytes from now on (a connection that turned out to be an agent's, whose reports are
    /// longer than a client's frames), never less than before.
    public mutating func allowFrames(upTo size: Int) {
        maximumFrameSize = min(max(maximumFrameSize, size), WireFormat.maximumFrameSize)
    }

    /// The room a decoder of a connection read through io_uring sets aside once for a frame cut between two
    /// completions: the ring's provided buffers cut the stream routinely, where epoll's 64 KiB reads rarely do, and
    /// room made on the first cut would be made in the middle of the run. One of its largest frames, at most 256 B.
    public static func ringCutCapacity(frameSize: Int) -> Int { min(256, frameSize) }

    /// Bytes held back because they start a frame that is not complete yet.
    ///
    /// Non-zero when the peer closes the connection means it closed half-way through a frame.
    public var bufferedByteCount: Int { pending.count }

    /// Decodes the next chunk of the stream.
    ///
    /// - Parameters:
    ///   - input: The bytes a read returned. Frames handed to `onFrame` may point into it, and the callback
    ///     may change their bytes in place (an echo client does); the decoder never reads them again.
    ///   - onFrame: Called once per complete frame, in stream order. Return `false` to stop decoding (the
    ///     connection is being closed); the rest of the chunk is then dropped.
    /// - Returns: `false` when `onFrame` asked to stop.
    /// - Throws: ``FrameError`` on a header that is not a valid frame; the decoder must not be used again.
    @discardableResult
    public mutating func decode(
        _ input: UnsafeMutableRawBufferPointer,
        _ onFrame: (Frame) -> Bool
    ) throws(FrameError) -> Bool {
        var offset = 0
        if !pending.isEmpty {
            offset = try completePendingFrame(from: input)
            if pendingHeader == nil || pending.count < pendingHeader!.size {
                return true
            }
            let kind = pendingHeader!.kind
            let proceed = pending.withUnsafeMutableBytes { onFrame(Frame(kind: kind, bytes: $0)) }
            pending.removeAll(keepingCapacity: true)
            pendingHeader = nil
            guard proceed else { return false }
        }
        while input.count - offset >= Self.headerSize {
            let header = try validateHeader(
                length: UInt32(bigEndian: input.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                kindByte: input[offset + WireFormat.lengthFieldSize]
            )
            guard input.count - offset >= header.size else { break }
            let frame = Frame(kind: header.kind, bytes: .init(rebasing: input[offset..<(offset + header.size)]))
            offset += header.size
            guard onFrame(frame) else { return false }
        }
        if offset < input.count {
            _ = try completePendingFrame(from: .init(rebasing: input[offset...]))
        }
        return true
    }

    /// A message of the layer below (a WebSocket message) ended: no frame may be left half-way.
    ///
    /// - Throws: ``FrameError/messageEndedInsideFrame`` when part of a frame is held back.
    public func messageEnded() throws(FrameError) {
        guard pending.isEmpty else { throw .messageEndedInsideFrame }
    }

    /// Moves bytes from `input` into `pending` until the pending frame is complete or `input` is used up.
    /// Returns how many bytes of `input` it took.
    private mutating func completePendingFrame(from input: UnsafeMutableRawBufferPointer) throws(FrameError) -> Int {
        var taken = 0
        if pendingHeader == nil {
            taken = min(Self.headerSize - pending.count, input.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<taken]))
            guard pending.count == Self.headerSize else { return taken }
            let length = pending[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let header = try validateHeader(length: length, kindByte: pending[4])
            pending.reserveCapacity(header.size)
            pendingHeader = header
        }
        let wanted = min(pendingHeader!.size - pending.count, input.count - taken)
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[taken..<(taken + wanted)]))
        return taken + wanted
    }

    /// Checks a frame header and returns the frame's kind and total size (length field included).
    private func validateHeader(length: UInt32, kindByte: UInt8) throws(FrameError) -> (kind: FrameKind, size: Int) {
        let size = Int(length) + WireFormat.lengthFieldSize
        guard length > 0 else { throw .emptyFrame }
        guard size <= maximumFrameSize else { throw .frameTooLarge(announced: size, limit: maximumFrameSize) }
        guard let kind = FrameKind(rawValue: kindByte) else { throw .unknownKind(kindByte) }
        switch kind {
        case .hello, .heartbeat, .goodbye, .dropConnections:
            let expected = kind == .hello ? WireFormat.helloFrameSize : WireFormat.heartbeatFrameSize
            guard size == expected else { throw .wrongSize(kind: kind, announced: size, expected: expected) }
        case .agentHello, .agentWelcome:
            guard size == WireFormat.agentFrameSize else {
                throw .wrongSize(kind: kind, announced: size, expected: WireFormat.agentFrameSize)
            }
        case .clockProbe, .clockReply, .clockReport:
            guard size == WireFormat.clockFrameSize else {
                throw .wrongSize(kind: kind, announced: size, expected: WireFormat.clockFrameSize)
            }
        case .clientSpec:
            guard size <= WireFormat.clientSpecMaximumSize else {
                throw .frameTooLarge(announced: size, limit: WireFormat.clientSpecMaximumSize)
            }
        case .clientReport:
            guard size >= ClientReport.headSize else {
                throw .frameTooSmall(kind: kind, announced: size, minimum: ClientReport.headSize)
            }
            guard size <= WireFormat.clientReportMaximumSize else {
                throw .frameTooLarge(announced: size, limit: WireFormat.clientReportMaximumSize)
            }
        case .sendReport:
            guard size == SendReport.size else {
                throw .wrongSize(kind: kind, announced: size, expected: SendReport.size)
            }
        case .data, .echo, .delivery, .read:
            guard size >= WireFormat.minimumMessageSize else {
                throw .frameTooSmall(kind: kind, announced: size, minimum: WireFormat.minimumMessageSize)
            }
        }
        return (kind, size)
    }
}
