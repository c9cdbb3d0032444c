// Micro-benchmarks of the per-message work, with the targets they must meet.
//
//   swift run -c release bench-micro
//
// Each case runs its loop over preallocated inputs several times and reports the best time per operation
// (the least disturbed run on a shared machine). Exits 1 when a target is missed.
import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

/// Runs `body` (which performs `operations` operations) `repetitions` times; returns the best ns per operation.
func bestNanosecondsPerOperation(operations: Int, repetitions: Int = 7, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<repetitions {
        let start = MonotonicClock.now()
        body()
        best = min(best, Double(MonotonicClock.now() - start) / Double(operations))
    }
    return best
}

/// Keeps a value alive so the optimizer cannot drop the work that made it.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

struct Result {
    let name: String
    let nanoseconds: Double
    let target: Double?
}

var results: [Result] = []

/// Latencies from 10 µs to 10 ms, uniform, for the histogram's case.
func latencies(_ count: Int) -> [UInt64] {
    var random = SplitMix64(seed: 1)
    return (0..<count).map { _ in UInt64(10_000 * (1 + Double(random.nextBounded(1000)) * 0.999)) }
}

// `bench-micro record COUNT`: only COUNT records into one histogram, once, and nothing else; a small run to count
// instructions with `valgrind --tool=callgrind` (the difference between two counts, per record, is the loop's cost).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "record", let count = Int(CommandLine.arguments[2]) {
    let values = latencies(1_000)
    var histogram = LatencyHistogram()
    for index in 0..<count { histogram.record(values[index % values.count]) }
    consume(histogram.standardDeviation)
    exit(0)
}

// Recording one latency into the histogram: the collector does this for every message and metric.
do {
    let values = latencies(1_000_000)
    var histogram = LatencyHistogram()
    let perRecord = bestNanosecondsPerOperation(operations: values.count) {
        for value in values { histogram.record(value) }
    }
    consume(histogram.count)
    results.append(Result(name: "LatencyHistogram.record", nanoseconds: perRecord, target: 50))
}

// Decoding 64-byte frames that arrive coalesced, 1000 to a read.
do {
    var stream = [UInt8](repeating: 0, count: 64 * 1000)
    stream.withUnsafeMutableBytes { bytes in
        for index in 0..<1000 {
            Frame.encodeMessage(
                into: .init(rebasing: bytes[(index * 64)..<(index * 64 + 64)]), sequence: UInt32(index), client: 1,
                sentNanoseconds: 1)
        }
    }
    var decoder = FrameDecoder(maximumFrameSize: 64)
    var sum: UInt64 = 0
    let perFrame = bestNanosecondsPerOperation(operations: 1000 * 100) {
        for _ in 0..<100 {
            _ = stream.withUnsafeMutableBytes { bytes in
                try! decoder.decode(bytes) { frame in
                    sum &+= UInt64(frame.sequence)
                    return true
                }
            }
        }
    }
    consume(sum)
    results.append(Result(name: "FrameDecoder.decode (64 B frame)", nanoseconds: perFrame, target: nil))
}

// Reading the clock, which every send and every receive does once.
do {
    var sum: UInt64 = 0
    let perRead = bestNanosecondsPerOperation(operations: 1_000_000) {
        for _ in 0..<1_000_000 { sum &+= MonotonicClock.now() }
    }
    consume(sum)
    results.append(Result(name: "MonotonicClock.now", nanoseconds: perRead, target: nil))
}

// Writing one samples.csv row of 10 fields into memory.
do {
    var writer = CSVWriter(sink: ByteArraySink())
    let rows = 200_000
    let perRow = bestNanosecondsPerOperation(operations: rows, repetitions: 3) {
        for row in 0..<rows {
            for field in 0..<8 { writer.field(UInt64(row &* 7919 &+ field)) }
            writer.field(0)
            writer.field("echoed")
            try! writer.endRow()
        }
    }
    consume(writer.sink.bytes.count)
    results.append(Result(name: "CSVWriter row (10 fields)", nanoseconds: perRow, target: nil))
}

// Handing a settled message from the measuring thread to the writer's: a push and a pop of the queue between them.
do {
    let queue = try SettledQueue(capacity: 1 << 16)
    let entry = SettledMessage(kind: .message, outcome: .echoed, sequence: 1, client: 2, written: 3, received: 4, echoed: 5)
    var sum = 0
    let rounds = 1_000
    let perEntry = bestNanosecondsPerOperation(operations: rounds * 1_024) {
        for _ in 0..<rounds {
            for _ in 0..<1_024 { queue.push(entry) }
            for _ in 0..<1_024 { sum &+= queue.pop()!.client }
        }
    }
    consume(sum)
    results.append(Result(name: "SettledQueue push + pop", nanoseconds: perEntry, target: 100))
}

// The writer's work per fanout message: its samples.csv row (kernel stamps) and the collector's statistics. One
// writer thread must keep up with any rate the harness sends at (a 1,000-client fanout every 50 ms is 20,000/s).
do {
    var configuration = RunConfiguration(scenario: .fanout, seed: 1)
    configuration.clients = 1_000
    configuration.exactBudget = 0  // as a long run: histograms only
    var collector = RunCollector(configuration: configuration, origin: 1_000)
    let reader = collector.reader
    var writer = CSVWriter(sink: ByteArraySink())
    let messages = 200_000
    let perMessage = bestNanosecondsPerOperation(operations: messages, repetitions: 3) {
        for index in 0..<messages {
            let time = UInt64(1_000_000 + index * 1_000)
            let entry = SettledMessage(
                kind: .message, outcome: .echoed, sequence: index / 1_000, client: index % 1_000, scheduled: time,
                written: time + 10_000, received: time + 90_000 + UInt64(index % 777), echoed: time + 200_000,
                writtenKernel: time + 11_000, receivedKernel: time + 80_000, echoedKernel: time + 190_000,
                broadcastStart: time, broadcastStartKernel: time + 1_000)
            try! SamplesCSV.writeRow(entry, reader: reader, origin: 1_000, warmup: 0, interval: 0, to: &writer)
            _ = collector.add(entry)
            if writer.sink.bytes.count > 1 << 24 { writer = CSVWriter(sink: ByteArraySink()) }
        }
    }
    consume(collector.measuredMessages)
    results.append(Result(name: "writer per message (row + stats)", nanoseconds: perMessage, target: 2_000))
}

var missed = false
print("benchmark                            ns/op   target")
for result in results {
    let value = DecimalText.fixed(result.nanoseconds, fractionDigits: 1)
    let target = result.target.map { result.nanoseconds <= $0 ? "< \(Int($0)) ns: met" : "< \(Int($0)) ns: MISSED" } ?? ""
    if let limit = result.target, result.nanoseconds > limit { missed = true }
    print(result.name.padding(36) + value.leftPadding(8) + "   " + target)
}
if missed { exit(1) }

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    func leftPadding(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

import Glibc
