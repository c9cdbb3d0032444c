import CBenchLinux
import Glibc

/// The process around the harness: signals, environment, memory, exit.
extension Posix {
    /// Blocks `signals` in the calling thread (and so in every thread it starts later) and returns the set, for
    /// ``waitForSignal(in:)``.
    public static func blockSignals(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        let status = pthread_sigmask(SIG_BLOCK, &set, nil)
        precondition(status == 0, "pthread_sigmask failed with \(status): a harness bug")
        return set
    }

    /// Waits until one of the blocked `signals` is pending and takes it.
    public static func waitForSignal(in signals: sigset_t) -> Int32 {
        var signals = signals
        var signal: Int32 = 0
        while sigwait(&signals, &signal) != 0 {}
        return signal
    }

    /// Ends the process at once with `code`, running nothing else (no buffers flushed, no handlers).
    public static func exitImmediately(_ code: Int32) -> Never {
        _exit(code)
    }

    /// The value of environment variable `name`, if set.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets environment variable `name` to `value`, for the programs this process starts next.
    public static func setEnvironment(_ name: String, _ value: String) {
        setenv(name, value, 1)
    }

    /// Removes environment variable `name`.
    public static func removeEnvironment(_ name: String) {
        unsetenv(name)
    }

    /// This machine's physical memory in bytes.
    public static var physicalMemory: Int {
        Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// This process gets `signal` when its parent goes, and true while its parent is there (false: it went already,
    /// and this process was handed to another).
    public static func followParent(_ originalParent: pid_t, signal: Int32) -> Bool {
        _ = CBench_setParentDeathSignal(signal)
        return getppid() == originalParent
    }

    /// Keeps descriptor `fd` from the programs this process starts.
    public static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Sleeps for about `nanoseconds` (longer if the machine is busy).
    public static func sleep(nanoseconds: UInt64) {
        var remaining = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while true {
            let asked = remaining
            guard withUnsafePointer(to: asked, { nanosleep($0, &remaining) }) != 0, Glibc.errno == EINTR else { return }
        }
    }

    /// The running kernel's name and release, as `uname -sr` prints them.
    public static func kernelRelease() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(text(names.sysname)) \(text(names.release))"
    }

    /// This process's id.
    public static var processID: Int32 { getpid() }

    /// This machine's host name; empty if it cannot be read.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This boot's identifier (`/proc/sys/kernel/random/boot_id`): the same for every process that shares this
    /// machine's monotonic clock since it booted; empty if it cannot be read.
    public static var bootIdentifier: String {
        let bytes = (try? readFile("/proc/sys/kernel/random/boot_id", limit: 4096)) ?? []
        return String(decoding: bytes, as: UTF8.self).trimmingSpaces
    }
}

extension String {
    /// Without leading and trailing spaces and line ends.
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}
