/// Matches the kernel's transmit stamps of one TCP connection to the messages they stamp.
///
/// The kernel stamps each send call when its last segment is handed on, keyed by the stream offset of the call's
/// last byte (modulo 2^32). A message is stamped by the first stamp whose key reaches the message's last byte: its
/// own send call's when it went out whole, or the call that wrote its queued remainder. The queue holds the messages
/// still waiting, in stream order, in a ring of fixed capacity allocated once; when it is full the oldest waiting
/// message gives up (it keeps its user-space stamp, and the caller counts it).
public struct TransmitStampQueue {
    private var ends: [UInt32]
    private var messages: [Int]
    private var head = 0
    /// Messages waiting for their stamp.
    public private(set) var count = 0

    /// Messages one connection's queue holds waiting at once, unless told otherwise.
    public static var defaultCapacity: Int { 32 }

    /// A queue for at most `capacity` messages waiting at once.
    public init(capacity: Int = defaultCapacity) {
        precondition(capacity > 0)
        ends = Array(repeating: 0, count: capacity)
        messages = Array(repeating: 0, count: capacity)
    }

    /// Expects a stamp for `message`, whose last byte is at stream offset `lastByte`. Returns the message that gave
    /// up waiting to make room, if the queue was full.
    @inline(__always)
    public mutating func expect(message: Int, lastByte: UInt64) -> Int? {
        var evicted: Int?
        if count == ends.count {
            evicted = messages[head]
            head = (head + 1) % ends.count
            count -= 1
        }
        let slot = (head + count) % ends.count
        ends[slot] = UInt32(truncatingIfNeeded: lastByte)
        messages[slot] = message
        count += 1
        return evicted
    }

    /// Hands the stamp keyed `key`, taken at `time`, to every waiting message whose last byte it reaches.
    @inline(__always)
    public mutating func stamp(key: UInt32, time: UInt64, _ assign: (_ message: Int, _ time: UInt64) -> Void) {
        while count > 0 && Int32(bitPattern: ends[head] &- key) <= 0 {
            assign(messages[head], time)
            head = (head + 1) % ends.count
            count -= 1
        }
    }
}
