/// The bytes inside one direction of an emulated link, in the order they entered, each segment with the time it comes
/// out (never earlier than the one before it). Storage grows to what the link holds and is kept: nothing is allocated
/// per segment once the link is busy.
struct LinkQueue {
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

    /// A segment that entered, and when it comes out.
    mutating func append(_ segment: UnsafeRawBufferPointer, exit: UInt64) {
        bytes.append(contentsOf: segment)
        segments.append((exit, bytes.count))
    }

    /// Hands `write` the bytes of every segment out by `now`, in one piece; `write` returns how many it took (it may
    /// take fewer: the rest waits). Returns how many were taken.
    mutating func writeOut(by now: UInt64, _ write: (UnsafeRawBufferPointer) -> Int) -> Int {
        var last = firstSegment
        while last < segments.count && segments[last].exit <= now { last += 1 }
        guard last > firstSegment else { return 0 }
        let end = segments[last - 1].end
        let taken = bytes.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[head..<end])) }
        head += taken
        while firstSegment < segments.count && segments[firstSegment].end <= head { firstSegment += 1 }
        compact()
        return taken
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
