import CBenchLinux
import Glibc

extension Posix {
    /// This process's own executable (`/proc/self/exe`), to start copies of it.
    public static var ownExecutable: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/proc/self/exe" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts `path` with `arguments` (the program name first) as a child process whose standard output and error go
    /// to `logPath` (appended), with the signals this process blocks unblocked again; `inherited`, when given, is its
    /// descriptor 3; with `ownGroup` it leads a process group of its own (a terminal's Ctrl-C does not reach it: its
    /// parent tells it). Returns its pid.
    public static func spawn(
        _ path: String, arguments: [String], logPath: String, inherited: Int32? = nil, ownGroup: Bool = false
    ) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let inherited { posix_spawn_file_actions_adddup2(&actions, inherited, 3) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        if ownGroup { posix_spawnattr_setpgroup(&attributes, 0) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        var pid = pid_t()
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard status == 0 else { throw SystemError("posix_spawn \(path)", errno: status) }
        return pid
    }

    /// The exit code of child `pid` if it has ended (128 + the signal if a signal ended it), nil while it runs.
    public static func exitStatus(of pid: pid_t) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// How child `pid` ended (as ``exitStatus(of:)``), left for whoever reaps it; nil while it runs.
    public static func peekExitStatus(of pid: pid_t) -> Int32? {
        let status = CBench_peekExitStatus(pid)
        return status < 0 ? nil : status
    }

    /// Sends `signal` to process `pid` (nothing if it is gone).
    public static func signal(_ pid: pid_t, _ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }
}
