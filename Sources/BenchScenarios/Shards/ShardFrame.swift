import BenchCore

/// The frames on a server shard's channel (`--server-procs`): a socket pair between the run's process and each
/// shard, the shard's end as its descriptor 3.
///
///     kind:u8 | length:u32 (little-endian) | body (`length` bytes)
///
/// A shard says `ready` once its clients are all connected and said hello, and is told `start` (the monotonic time
/// sending begins, the same for every shard: one boot, one clock); then it streams its settled `entries` (each
/// ``entrySize`` bytes) and, once its run ended, its `summary` (``ShardSummary``); a shard that could not run says
/// why in `failure` instead. A chat relay process (``ServerShards/serveChatRooms(_:place:channel:control:)``) says `ready` with
/// the port it listens on (2 bytes, little-endian), then how many members `joined`, and its `summary` once stopped.
/// The run's process reads every frame as untrusted input: a kind it does not know, a body
/// past ``maximumBody`` or an entry that does not decode ends that shard as dead.
public enum ShardFrame {
    public enum Kind: UInt8, Sendable {
        case ready = 1
        case start = 2
        case entries = 3
        case summary = 4
        case failure = 5
        /// A chat relay process's members in their rooms, when it changed (8 bytes, little-endian).
        case joined = 6
    }

    /// Kind and length.
    public static let headerSize = 5
    /// The largest body read: a summary holds a few numbers per client of the shard.
    public static let maximumBody = 64 << 20
    /// One settled entry's bytes: kind, outcome, then twelve 64-bit fields.
    public static let entrySize = 2 + 12 * 8

    /// A frame's bytes: its header, then `body`.
    public static func encode(_ kind: Kind, body: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = [kind.rawValue]
        bytes.reserveCapacity(headerSize + body.count)
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { bytes += $0 }
        return bytes + body
    }

    /// Writes `entry` at `offset` of `buffer` (``entrySize`` bytes).
    public static func encode(_ entry: SettledMessage, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer[offset] = entry.kind.rawValue
        buffer[offset + 1] = entry.outcome.rawValue
        func store(_ field: UInt64, _ index: Int) {
            buffer.storeBytes(of: field.littleEndian, toByteOffset: offset + 2 + 8 * index, as: UInt64.self)
        }
        store(UInt64(bitPattern: Int64(entry.sequence)), 0)
        store(UInt64(bitPattern: Int64(entry.client)), 1)
        store(UInt64(bitPattern: Int64(entry.sender)), 2)
        store(entry.scheduled, 3)
        store(entry.written, 4)
        store(entry.received, 5)
        store(entry.echoed, 6)
        store(entry.writtenKernel, 7)
        store(entry.receivedKernel, 8)
        store(entry.echoedKernel, 9)
        store(entry.broadcastStart, 10)
        store(entry.broadcastStartKernel, 11)
    }

    /// The entry at `offset` of `bytes`, or nil when its kind or outcome is none there is, or a number is negative.
    public static func decodeEntry(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> SettledMessage? {
        guard offset >= 0, offset + entrySize <= bytes.count,
            let kind = SettledMessage.Kind(rawValue: bytes[offset]),
            let outcome = MessageOutcome(rawValue: bytes[offset + 1])
        else { return nil }
        func field(_ index: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 2 + 8 * index, as: UInt64.self))
        }
        let (sequence, client, sender) = (Int64(bitPattern: field(0)), Int64(bitPattern: field(1)), Int64(bitPattern: field(2)))
        guard sequence >= 0, client >= 0, sender >= 0 else { return nil }
        return SettledMessage(
            kind: kind, outcome: outcome, sequence: Int(sequence), client: Int(client), sender: Int(sender),
            scheduled: field(3), written: field(4), received: field(5), echoed: field(6), writtenKernel: field(7),
            receivedKernel: field(8), echoedKernel: field(9), broadcastStart: field(10), broadcastStartKernel: field(11))
    }
}

/// Cuts a shard's channel into frames, from bytes as they come (any split): the run's process's reader of one shard.
public struct ShardFrameReader: Sendable {
    private var bytes: [UInt8] = []
    private var start = 0

    public init() {}

    /// A frame that cannot be: a kind none is, or a body too long.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Takes `incoming` and hands each whole frame to `body`, in order; what is cut off waits for the next bytes.
    public mutating func take(
        _ incoming: UnsafeRawBufferPointer, _ body: (ShardFrame.Kind, UnsafeRawBufferPointer) -> Void
    ) throws(Malformed) {
        bytes.append(contentsOf: incoming)
        while bytes.count - start >= ShardFrame.headerSize {
            guard let kind = ShardFrame.Kind(rawValue: bytes[start]) else {
                throw Malformed(description: "a frame of kind \(bytes[start]), which none is")
            }
            var length = 0
            for index in 0..<4 { length |= Int(bytes[start + 1 + index]) << (8 * index) }
            guard length <= ShardFrame.maximumBody else {
                throw Malformed(description: "a frame of \(length) bytes, more than \(ShardFrame.maximumBody)")
            }
            guard bytes.count - start - ShardFrame.headerSize >= length else { break }
            let bodyStart = start + ShardFrame.headerSize
            bytes.withUnsafeBytes { all in body(kind, UnsafeRawBufferPointer(rebasing: all[bodyStart..<bodyStart + length])) }
            start = bodyStart + length
        }
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1 << 16 {
            bytes.removeFirst(start)
            start = 0
        }
    }
}
