import BenchCore
import Testing

@Suite struct TransmitStampQueueTests {
    @Test func eachStampGoesToTheMessagesWhoseLastByteItReaches() {
        var queue = TransmitStampQueue(capacity: 8)
        for message in 0..<4 { #expect(queue.expect(message: message, lastByte: UInt64(message * 64 + 63)) == nil) }
        var stamped: [(Int, UInt64)] = []
        queue.stamp(key: 63, time: 1000) { stamped.append(($0, $1)) }
        queue.stamp(key: 100, time: 1500) { stamped.append(($0, $1)) }  // a part of message 1: not its end
        queue.stamp(key: 191, time: 2000) { stamped.append(($0, $1)) }  // the rest of 1 and all of 2, in one send
        #expect(stamped.map(\.0) == [0, 1, 2])
        #expect(stamped.map(\.1) == [1000, 2000, 2000])
        #expect(queue.count == 1)
    }

    @Test func keysWrapAtFourGibibytes() {
        var queue = TransmitStampQueue(capacity: 4)
        let base: UInt64 = (1 << 32) - 10
        _ = queue.expect(message: 7, lastByte: base + 5)  // before the wrap
        _ = queue.expect(message: 8, lastByte: base + 20)  // after it
        var stamped: [Int] = []
        queue.stamp(key: UInt32(truncatingIfNeeded: base + 5), time: 1) { message, _ in stamped.append(message) }
        #expect(stamped == [7])
        queue.stamp(key: UInt32(truncatingIfNeeded: base + 20), time: 2) { message, _ in stamped.append(message) }
        #expect(stamped == [7, 8])
    }

    @Test func aFullQueueGivesUpOnItsOldestMessage() {
        var queue = TransmitStampQueue(capacity: 2)
        #expect(queue.expect(message: 1, lastByte: 10) == nil)
        #expect(queue.expect(message: 2, lastByte: 20) == nil)
        #expect(queue.expect(message: 3, lastByte: 30) == 1)
        var stamped: [Int] = []
        queue.stamp(key: 30, time: 5) { message, _ in stamped.append(message) }
        #expect(stamped == [2, 3])
    }
}
