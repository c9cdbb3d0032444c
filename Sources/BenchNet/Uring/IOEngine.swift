import CBenchLinux
import Glibc

/// How an event loop reads and writes its connections.
public enum IOEngine: String, Sendable, CaseIterable {
    /// epoll_wait, then a read or write call per socket.
    case epoll
    /// io_uring: multishot receives into provided buffers, and each pass's writes in one submission, beside the
    /// epoll for everything else (``UringReceiver``, ``SendBatch``).
    case uring
}

/// What `--io` asks for.
public enum IOEngineChoice: String, Sendable, CaseIterable {
    /// io_uring from ``IOEngine/autoUringClients`` clients, where it works; epoll below, and where it does not.
    case auto
    case epoll
    case uring

    /// The default of `--io`: the environment's `BENCH_IO` (auto, epoll or uring; how CI runs the whole suite on one
    /// engine), else auto.
    public static let environmentDefault: IOEngineChoice =
        getenv("BENCH_IO").flatMap { IOEngineChoice(rawValue: String(cString: $0)) } ?? .auto
}

extension IOEngine {
    /// Where `auto` picks io_uring: from this many clients. Benchmarks/cpu-per-message.sh (user + system time per
    /// message, medians of alternating runs) measured io_uring at 0.85–0.97× epoll's CPU at 1,000 and 2,000 clients,
    /// 0.85× at 2,500, 0.83× at 5,000, 0.79× at 10,000. Below, epoll: the saving is small there (0.94× at 250), and
    /// the fewer the clients, the more a broadcast's first writes waiting for the batch show in its delivery.
    public static let autoUringClients = 1_000

    /// The engine for `choice` on this machine for a run of `clients` clients, and a note when io_uring was wanted and
    /// refused (the run goes on with epoll: io_uring is often forbidden, by `kernel.io_uring_disabled` or a
    /// container's seccomp profile). `probe` tries io_uring (``probe()``: a ring, provided buffers, a multishot
    /// receive, once per process).
    public static func resolve(
        _ choice: IOEngineChoice, clients: Int,
        probe: () throws(IOUringRefusal) -> Void = { () throws(IOUringRefusal) in try probe() }
    ) -> (engine: IOEngine, note: String?) {
        guard choice == .uring || (choice == .auto && clients >= autoUringClients) else { return (.epoll, nil) }
        do {
            try probe()
            return (.uring, nil)
        } catch {
            let why = error.errno == EPERM
                ? " (kernel.io_uring_disabled, or a seccomp profile such as Docker's or Kubernetes' default, forbids it)"
                : ""
            let asked = choice == .auto ? " (auto picks it from \(autoUringClients) clients)" : ""
            return (.epoll, "io_uring is not available here\(asked): \(error)\(why); the run uses epoll")
        }
    }

    /// Tries what the engine needs, once per process: a ring with provided buffers, and a multishot receive of a
    /// socket pair that delivers a byte and goes on (Linux 6.0+).
    public static func probe() throws(IOUringRefusal) {
        try probeResult.get()
    }

    private static let probeResult: Result<Void, IOUringRefusal> = Result { () throws(IOUringRefusal) in
        let ring = try IOUring(entries: 8, completions: 16, bufferCount: 8, bufferSize: 64)
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, CBenchSOCK_STREAM | CBenchSOCK_CLOEXEC, 0, &pair) == 0 else {
            throw IOUringRefusal(step: "socketpair", errno: errno)
        }
        defer {
            close(pair[0])
            close(pair[1])
        }
        var byte: UInt8 = 7
        _ = ring.receive(pair[0], userData: 1)
        guard write(pair[1], &byte, 1) == 1 else { throw IOUringRefusal(step: "write", errno: errno) }
        do throws(SystemError) {
            try ring.enter(wait: true, timeoutNanoseconds: 1_000_000_000)
        } catch {
            throw IOUringRefusal(step: "io_uring_enter", errno: error.errno)
        }
        guard let completion = ring.nextCompletion() else {
            throw IOUringRefusal(step: "multishot receive (no completion)", errno: ETIMEDOUT)
        }
        guard completion.result == 1, completion.hasMore, let received = ring.received(completion),
            received.bytes.first == 7
        else {
            let errno = completion.result < 0 ? -completion.result : EINVAL
            throw IOUringRefusal(step: "multishot receive with provided buffers (6.0+)", errno: errno)
        }
    }
}
