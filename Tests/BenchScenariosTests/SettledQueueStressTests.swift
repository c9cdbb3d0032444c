import BenchNet
import Synchronization
import Testing

@testable import BenchScenarios

/// `SettledQueue` across many wraps of a small ring, with a real producer and consumer thread: every entry arrives
/// once, in order, whole (each field derived from the sequence number, so a torn or stale slot shows). Run it under
/// ThreadSanitizer too: `swift test --sanitize=thread --filter SettledQueueStressTests`.
@Suite(.timeLimit(.minutes(3))) struct SettledQueueStressTests {
    @Test(arguments: [2, 8, 64])
    func aSmallRingWrappedThousandsOfTimesDeliversEveryEntryOnceInOrder(capacity: Int) throws {
        let queue = SettledQueue(capacity: capacity)
        let count = capacity * 2_000  // 2,000 wraps; the producer meets a full ring often (and sleeps 0.2 ms each time)
        let producer = try NativeThread.spawn(name: "test-producer") { () -> Int in
            for sequence in 0..<count {
                let value = UInt64(sequence)
                queue.push(SettledMessage(
                    kind: .message, outcome: .echoed, sequence: sequence, client: sequence % 7, scheduled: value,
                    written: value &* 3, received: value &* 5, echoed: value &* 7))
            }
            queue.push(SettledMessage(kind: .end))
            return count
        }
        var received = 0
        var misfits: [Int] = []
        var spins = 0
        while true {
            guard let entry = queue.pop() else {
                spins += 1
                if spins % 64 == 0 { Posix.sleep(nanoseconds: 10_000) }  // let the producer run on a busy machine
                continue
            }
            if entry.kind == .end { break }
            let value = UInt64(received)
            if entry.sequence != received || entry.client != received % 7 || entry.scheduled != value
                || entry.written != value &* 3 || entry.received != value &* 5 || entry.echoed != value &* 7
            {
                if misfits.count < 5 { misfits.append(received) }
            }
            received += 1
        }
        #expect(producer.join() == count)
        #expect(received == count)
        #expect(misfits.isEmpty, "entries torn or out of order at \(misfits)")
        #expect(queue.pop() == nil, "nothing after the end")
    }
}
