import BenchClients
import BenchCore
import BenchNet
import Glibc

/// One of a run's server processes (`--server-procs`: a fanout or roundtrip shard, or a chat relay process) as the
/// run's process sees it: the frames on its channel read as untrusted input (``ShardFrame``), its summary or why it
/// could not run, and its end. A frame that does not decode, or that this kind of process does not send, ends it as
/// failed, and its process group is killed (its client processes too).
struct ServerProcess<State> {
    let channel: ChildChannel
    /// Its clients, as its summary counts them.
    let clients: Int
    /// What its own kind of frames said.
    var state: State
    var reader = ShardFrameReader()
    var summary: ShardSummary?
    /// Why it did not end as it should; nil while it did.
    var failure: String?
    var closed = false

    init(channel: ChildChannel, clients: Int, state: State) {
        (self.channel, self.clients, self.state) = (channel, clients, state)
    }

    /// Takes what it sent until its channel would block (`buffer` to read into): its summary and failure here, every
    /// other frame to `take`, which returns why it is none this process sends (nil when taken); or its end (`closed`,
    /// with why when it did not end with its summary).
    mutating func read(
        into buffer: UnsafeMutableRawBufferPointer, take: (ShardFrame.Kind, UnsafeRawBufferPointer, inout State) -> String?
    ) {
        while !closed {
            let result: IOResult<Int>
            do {
                result = try Posix.read(channel.descriptor, into: buffer)
            } catch {
                failure = failure ?? "could not be read (\(error))"
                closed = true
                break
            }
            guard case .processed(let count) = result else { return }
            guard count > 0 else {
                closed = true
                if summary == nil && failure == nil { failure = Self.howItEnded(channel.processID) }
                return
            }
            // Taken out (not copied) while the frames are handed on: its bytes are not copied on every read.
            var (reader, state) = (ShardFrameReader(), self.state)
            swap(&reader, &self.reader)
            do {
                try reader.take(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { kind, body in
                    switch kind {
                    case .summary:
                        summary = ShardSummary(decoding: body, clients: clients)
                        if summary == nil { failure = failure ?? "sent a summary that is none" }
                    case .failure:
                        failure = "could not run: " + String(decoding: body.prefix(2_048), as: UTF8.self)
                    default:
                        if let refusal = take(kind, body, &state) { failure = failure ?? refusal }
                    }
                }
            } catch {
                failure = failure ?? "sent \(error)"
            }
            (self.reader, self.state) = (reader, state)
            if failure != nil && summary == nil { killGroup() }
        }
    }

    /// Kills its process group (its client processes too) and counts it as ended, `reason` its failure unless one was
    /// said.
    mutating func kill(because reason: String) {
        failure = failure ?? reason
        killGroup()
    }

    private mutating func killGroup() {
        Posix.signal(-pid_t(channel.processID), SIGKILL)
        closed = true
    }

    /// How a server process ended, once its channel closed: waited for a moment, as its exit may come just after (the
    /// process is left for its launcher to reap).
    static func howItEnded(_ processID: Int) -> String {
        for _ in 0..<100 {
            if let status = Posix.peekExitStatus(of: pid_t(processID)) {
                return status > 128 ? "was killed by signal \(status - 128)" : "exited with code \(status)"
            }
            Posix.sleep(nanoseconds: 10_000_000)
        }
        return "closed its channel"
    }
}
