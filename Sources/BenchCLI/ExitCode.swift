/// The process exit codes of SPEC §5.
public enum ExitCode: Int32, Sendable {
    /// Ran, and every threshold held.
    case success = 0
    /// Ran, and a threshold was breached.
    case thresholdBreached = 1
    /// Usage error: nothing run, nothing written.
    case usage = 2
    /// The run could not be done (cannot bind, too many clients, every client failed…).
    case runFailed = 3
    /// Stopped by SIGINT after writing what was measured.
    case interrupted = 130
    /// Stopped by SIGTERM after writing what was measured.
    case terminated = 143
}
