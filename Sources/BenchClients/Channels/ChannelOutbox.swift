import BenchCore
import BenchNet

/// What the measuring thread writes on a channel to a share of a target run's clients (a roundtrip's send orders, an
/// agent's clock replies): gathered here and written without waiting, once per pass of its loop. What the socket does
/// not take waits, in order, up to ``capacity`` bytes; a frame that does not fit is refused (an order's message is then
/// lost as `dropped_queue_full`), so a share that does not keep up is never waited for. The buffer is made on first
/// use, once: a fan-out run's channels write only `--drop-connections-at`'s order, if any.
public final class ChannelOutbox {
    /// The most bytes that wait: 26,000 orders.
    static var capacity: Int { 1 << 20 }

    private var buffer: UnsafeMutableRawBufferPointer?
    private var start = 0
    private var end = 0

    public init() {}

    deinit {
        buffer?.deallocate()
    }

    /// True when nothing waits.
    public var isEmpty: Bool { start == end }

    /// Room for a frame of `count` bytes behind what waits, for the caller to fill; nil when it does not fit.
    @inline(__always)
    public func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer? {
        if buffer == nil { buffer = .allocate(byteCount: Self.capacity, alignment: 8) }
        let buffer = buffer!
        if buffer.count - end < count {
            guard buffer.count - (end - start) >= count else { return nil }
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<end - start])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            (start, end) = (0, end - start)
        }
        defer { end += count }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[end..<end + count])
    }

    /// Writes what `descriptor` takes now; true when nothing is left waiting.
    public func flush(to descriptor: Int32) throws(SystemError) -> Bool {
        guard let buffer else { return true }
        while start < end {
            guard case .processed(let count) = try Posix.sendSome(descriptor, UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            else { return false }
            start += count
        }
        (start, end) = (0, 0)
        return true
    }
}
