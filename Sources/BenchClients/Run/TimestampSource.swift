/// Where a run's receive and send times come from (`--timestamps`).
///
/// The default is `kernel`: against a nanosecond capture of the same runs on loopback, kernel-stamped round trips
/// were 2 µs longer than the wire's and user-space ones 46 µs (the wake-ups of both ends), and a 2,000-client
/// fan-out's spread was 1.05× the wire's with kernel stamps and 1.78× with user-space ones
/// (`Benchmarks/kernel-stamps-vs-wire.sh`). Where the kernel gives no stamp, the user-space time stands in.
public enum TimestampSource: String, CaseIterable, Sendable {
    /// The harness's own clock reads: right after `read` returned, right before `send` was called.
    case user
    /// The kernel's software stamps (SO_TIMESTAMPING): when a segment arrived, when it was handed on; the
    /// user-space time stands in, counted, where the kernel gave none.
    case kernel
    /// Kernel stamps for the metrics, and the user-space times beside them with the metric `stack`: how long the
    /// bytes waited in the socket for the harness.
    case both

    /// True when the kernel stamps sockets for this run.
    public var usesKernel: Bool { self != .user }
}
