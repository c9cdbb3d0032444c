import BenchCore
import BenchNet
import Dispatch

/// The threads that write their share of each broadcast beside the server's own (`--server-threads K`), as broadcast
/// servers use more cores for a large fan-out.
///
/// For each broadcast the server lays out every position's target, wakes the writers, writes its own share, and waits
/// for theirs; thread `t` writes the positions `t`, `t + K`, `t + 2K`… of the broadcast's random order, so every
/// thread's share spans the whole order. Each connection is written by one thread at a time and the server's thread
/// touches none while the writers run; the semaphores order the hand-overs. Results go to preallocated buffers: no
/// allocation per message, and the server's thread does all bookkeeping afterwards.
final class BroadcastWriters<T: Transport>: @unchecked Sendable {
    /// One position of the broadcast being written.
    struct Target {
        /// The connection, if the client is connected and open; unretained: the server keeps it alive.
        var connection: Unmanaged<Connection<T>>?
        var client: UInt32
    }

    /// Threads writing a broadcast, the server's own included.
    let threads: Int
    /// Per position of the broadcast being written: target, time before its write, and result.
    let targets: UnsafeMutableBufferPointer<Target>
    let times: UnsafeMutableBufferPointer<UInt64>
    let results: UnsafeMutableBufferPointer<WriteResult>
    /// Set by the server before waking the writers: the broadcast, its client count, and whether the first write of
    /// each thread asks for a kernel transmit stamp.
    var sequence = 0
    var count = 0
    var stampFirstWrites = false
    /// Each writer's own copy of the data frame (the server's thread uses its own buffer).
    private let frames: [UnsafeMutableRawBufferPointer]
    private let go: [DispatchSemaphore]
    private let done = DispatchSemaphore(value: 0)
    private var stopping = false
    private var workers: [NativeThread<CPUSet>] = []

    /// Starts `threads − 1` writer threads for broadcasts to `clients` clients of `payload`-byte frames, pinned to
    /// `cpu` if given.
    init(threads: Int, clients: Int, payload: Int, cpu: Int?) throws(SystemError) {
        precondition(threads >= 2)
        self.threads = threads
        targets = .allocate(capacity: clients)
        targets.initialize(repeating: Target(connection: nil, client: 0))
        times = .allocate(capacity: clients)
        times.initialize(repeating: 0)
        results = .allocate(capacity: clients)
        results.initialize(repeating: .notConnected)
        frames = (1..<threads).map { _ in
            let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: payload, alignment: 8)
            Frame.encodeMessage(into: frame, sequence: 0, client: 0, sentNanoseconds: 0)
            return frame
        }
        go = (1..<threads).map { _ in DispatchSemaphore(value: 0) }
        for writer in 1..<threads {
            do {
                workers.append(try NativeThread.spawn(name: "bench-writer") { [self] in
                    CPUPlacement.minimizeTimerSlack()
                    if let cpu { try? CPUPlacement.pinCurrentThread(to: cpu) }
                    var seen = CPUSet()
                    while true {
                        go[writer - 1].wait()
                        if stopping { return seen }
                        seen.insert(CPUPlacement.currentCPU())
                        writeShare(of: writer, frame: frames[writer - 1])
                        done.signal()
                    }
                })
            } catch {
                stop()
                throw error
            }
        }
    }

    deinit {
        targets.deallocate()
        times.deallocate()
        results.deallocate()
        for frame in frames { frame.deallocate() }
    }

    /// Wakes the writers for the broadcast laid out in ``targets``, writes the share of the server's thread with its
    /// `frame`, and returns once every share is written.
    func writeBroadcast(frame: UnsafeMutableRawBufferPointer) {
        for semaphore in go { semaphore.signal() }
        writeShare(of: 0, frame: frame)
        for _ in go { done.wait() }
    }

    /// Ends the writer threads and returns the CPUs they ran on.
    @discardableResult
    func stop() -> CPUSet {
        stopping = true
        for semaphore in go { semaphore.signal() }
        var seen = CPUSet()
        for worker in workers { seen.formUnion(worker.join()) }
        workers = []
        return seen
    }

    private func writeShare(of thread: Int, frame: UnsafeMutableRawBufferPointer) {
        let message = Frame(kind: .data, bytes: frame)
        let sequence = UInt32(truncatingIfNeeded: self.sequence)
        for position in stride(from: thread, to: count, by: threads) {
            let target = targets[position]
            let time = MonotonicClock.now()
            times[position] = time
            guard let connection = target.connection?.takeUnretainedValue(), connection.isOpen else {
                results[position] = .notConnected
                continue
            }
            message.setMessageFields(sequence: sequence, client: target.client, sentNanoseconds: time)
            results[position] = BenchServer<T>.send(
                frame, on: connection, stamped: stampFirstWrites && position == thread)
        }
    }
}
