import CBenchLinux
import Glibc

/// A POSIX thread that runs one closure and hands back its result on ``join()``.
///
/// Event loops run on these rather than on Dispatch or Swift concurrency: a loop owns its thread, blocks in
/// epoll_wait, and can be pinned to a CPU.
public final class NativeThread<Result: Sendable>: @unchecked Sendable {
    // Written by the thread before it exits, read by the joiner after pthread_join (which orders the two).
    private var result: Result?
    private var handle = pthread_t()
    private var joined = false

    private init() {}

    /// Starts a thread named `name` (at most 15 bytes are kept) that runs `body`.
    public static func spawn(
        name: String,
        _ body: @escaping @Sendable () -> Result
    ) throws(SystemError) -> NativeThread<Result> {
        let thread = NativeThread<Result>()
        let start = ThreadStart(name: name) { thread.result = body() }
        let context = Unmanaged.passRetained(start).toOpaque()
        let status = pthread_create(&thread.handle, nil, runThreadStart, context)
        guard status == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            throw SystemError("pthread_create", errno: status)
        }
        return thread
    }

    /// Waits for the thread to finish and returns what its closure returned. Call once.
    public func join() -> Result {
        precondition(!joined, "NativeThread joined twice")
        joined = true
        let status = pthread_join(handle, nil)
        precondition(status == 0, "pthread_join failed with \(status)")
        return result!
    }
}

/// What a new thread runs first: its name, then the body. Not generic, so that a C function can take it.
private final class ThreadStart {
    let name: String
    let body: () -> Void

    init(name: String, body: @escaping () -> Void) {
        self.name = name
        self.body = body
    }
}

private func runThreadStart(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
    CBench_setThreadName(start.name)
    start.body()
    return nil
}
