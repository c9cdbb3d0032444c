import BenchCore

/// The bytes inside one direction of an emulated link, in the order they entered, each segment with the time it comes
/// out (never earlier than the one before it). Storage grows to what the link holds and is kept: nothing is allocated
/// per segment once the link is busy.
struct LinkQueue {
    /// The most bytes of one segment: loopback cuts nothing, a phone's link cuts at its MSS.
    static let segmentSize = 1_448

    private var bytes: [UInt8] = []
    private var head = 0
    /// Each segment's exit time and the offset in `bytes` where it ends.
    private var segments: [(exit: UInt64, end: Int)] = []
    private var firstSegment = 0

    var isEmpty: Bool { firstSegment == segments.count }
    /// Bytes inside the link.
    var count: Int { bytes.count - head }
    /// When the next segment comes out.
    var nextExit: UInt64? { isEmpty ? nil : segments[firstSegment].exit }

    /// Bytes `first` then `second` that entered at `time`, cut into segments, each out when `path` lets it.
    mutating func append(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        entering time: UInt64, through path: inout LinkPath
    ) {
        var pending = 0  // bytes of the segment being cut, already appended
        cut(first, pending: &pending, entering: time, through: &path)
        cut(second, pending: &pending, entering: time, through: &path)
        if pending > 0 { segments.append((path.exit(entering: time, bytes: pending), bytes.count)) }
    }

    private mutating func cut(
        _ part: UnsafeRawBufferPointer, pending: inout Int, entering time: UInt64, through path: inout LinkPath
    ) {
        var offset = 0
        while offset < part.count {
            let size = min(Self.segmentSize - pending, part.count - offset)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: part[offset..<offset + size]))
            offset += size
            pending += size
            if pending == Self.segmentSize {
                segments.append((path.exit(entering: time, bytes: pending), bytes.count))
                pending = 0
            }
        }
    }

    /// Copies the bytes of the segments out by `now` into `buffer`, as many as it holds (a segment may be cut); returns
    /// how many, and the exit of the last segment they reach into.
    mutating func take(into buffer: UnsafeMutableRawBufferPointer, by now: UInt64) -> (count: Int, lastExit: UInt64) {
        var lastExit: UInt64 = 0
        let taken = writeOut(by: now) { bytes in
            let count = min(bytes.count, buffer.count)
            buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: count)
            return count
        } lastExit: { lastExit = $0 }
        return (taken, lastExit)
    }

    /// Hands `write` the bytes of every segment out by `now`, in one piece; `write` returns how many it took (it may
    /// take fewer: the rest waits). Returns how many were taken.
    mutating func writeOut(
        by now: UInt64, _ write: (UnsafeRawBufferPointer) -> Int, lastExit: (UInt64) -> Void = { _ in }
    ) -> Int {
        var last = firstSegment
        while last < segments.count && segments[last].exit <= now { last += 1 }
        guard last > firstSegment else { return 0 }
        let end = segments[last - 1].end
        let taken = bytes.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[head..<end])) }
        head += taken
        // The segment the last byte taken belongs to.
        var reached = firstSegment
        while reached < last - 1 && segments[reached].end < head { reached += 1 }
        if taken > 0 { lastExit(segments[reached].exit) }
        while firstSegment < segments.count && segments[firstSegment].end <= head { firstSegment += 1 }
        compact()
        return taken
    }

    /// Hands `write` every byte the queue holds, due or not (a connection closing: its last words go at once); returns
    /// how many it took.
    mutating func writeOutAll(_ write: (UnsafeRawBufferPointer) -> Int) -> Int {
        writeOut(by: .max, write)
    }

    /// Empties the link (its bytes vanish: a NAT that forgot the connection).
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        segments.removeAll(keepingCapacity: true)
        (head, firstSegment) = (0, 0)
    }

    /// Drops what went out, once it is the larger part: each byte is moved at most once on average.
    private mutating func compact() {
        if isEmpty && head == bytes.count { return removeAll() }
        guard head >= 1 << 16 && head * 2 >= bytes.count else { return }
        bytes.removeSubrange(0..<head)
        segments.removeSubrange(0..<firstSegment)
        for index in segments.indices { segments[index].end -= head }
        (head, firstSegment) = (0, 0)
    }
}
