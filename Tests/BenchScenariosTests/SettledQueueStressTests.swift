import BenchNet
import Synchronization
import Testing

@testable import BenchScenarios

/// `SettledQueue` across many wraps of a small ring, with a real producer and consumer thread: every entry arrives
/// once, in order, whole (each field derived from the sequence number, so a torn or stale slot shows). Run it under
/// ThreadSanitizer too: `swift test --sanitize=thread --filter SettledQueueStressTests`.
@Suite(.timeLimit(.minutes(10))) struct SettledQueueStressTests {
    @Test(arguments: [2, 8, 64])
    func aSmallRingWrappedThousandsOfTimesDeliversEveryEntryOnceInOrder(capacity: Int) throws {
        let queue = try SettledQueue(capacity: capacity)
        let count = capacity * 2_000  // 2,000 wraps; the producer meets a full ring often (and waits for a pop each time)
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

    /// The writer sleeps on an empty queue until the producer publishes (it polled every 2 ms before): a wait whose
    /// bound (a minute) passed would mean the producer's word never came.
    @Test func aConsumerAsleepOnAnEmptyQueueWakesWhenEntriesArePublished() throws {
        let queue = try SettledQueue(capacity: 4)
        let consumer = try NativeThread.spawn(name: "test-consumer") { () -> (Bool, SettledMessage?) in
            let woken = queue.waitForEntries(upTo: 60_000_000_000)
            return (woken, queue.pop())
        }
        queue.push(SettledMessage(kind: .start, scheduled: 42))
        queue.publish()
        let (woken, entry) = consumer.join()
        #expect(woken, "the consumer slept until its bound: publishing did not wake it")
        #expect(entry?.kind == .start && entry?.scheduled == 42)
    }
}
