import CBenchLinux
import Glibc

/// The kernel's software socket timestamps (SO_TIMESTAMPING), converted to the run's clock.
///
/// The kernel stamps a segment when the loopback (or a NIC's driver) hands it on (transmit) and when it arrives
/// (receive), in CLOCK_REALTIME. One instance per thread: it owns the control-message buffer that `recvmsg` fills,
/// allocated once, so reading a stamp allocates nothing.
public final class KernelTimestamps {
    /// How CLOCK_REALTIME stamps become CLOCK_MONOTONIC ones.
    public let clock: KernelClockMapping
    private let control: UnsafeMutableRawBufferPointer

    /// Stamps converted with `clock`. The process's first one waits (up to 2 s, once) until the kernel stamps what
    /// arrives: see ``ReceiveStamping``.
    public init(clock: KernelClockMapping) {
        self.clock = clock
        control = .allocate(byteCount: 512, alignment: 8)
        _ = ReceiveStamping.switchOn()
    }

    deinit {
        control.deallocate()
    }

    /// Asks the kernel to stamp what `fd` receives and, with `transmit`, to key the transmit stamps that
    /// ``Connection/send(_:stamped:)`` asks for by the offset of each send's last byte from now on (read back with
    /// ``nextTransmitStamp(on:)``). Transmit stamps cost the sender a few microseconds per send, so they are asked
    /// for per send, not for all.
    public func enable(on fd: Int32, transmit: Bool) throws(SystemError) {
        let status = CBench_enableKernelTimestamps(fd, transmit ? 1 : 0)
        if status != 0 { throw SystemError("setsockopt SO_TIMESTAMPING", errno: status) }
    }

    /// Reads once into `buffer`, like ``Posix/read(_:into:)``, and returns the kernel's receive stamp of what it read
    /// (monotonic ns; 0 when the kernel gave none). `.processed((0, _))` is end of stream.
    @inline(__always)
    public func receive(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemError) -> IOResult<(count: Int, stamp: UInt64)> {
        var realtime: Int64 = 0
        let control = self.control
        let result = try Posix.nonBlockingCall("recvmsg") {
            CBench_receiveStamped(fd, buffer.baseAddress, UInt(buffer.count), control.baseAddress, UInt(control.count), &realtime)
        }
        guard case .processed(let count) = result else { return .wouldBlock }
        return .processed((count, clock.monotonic(fromRealtime: realtime)))
    }

    /// Takes the next transmit stamp of `fd` off its error queue, without waiting; nil when there is none.
    ///
    /// - Returns: The offset (from when stamping was enabled, modulo 2^32) of the last byte of the send it stamps,
    ///   and when the kernel handed that send's last segment on (monotonic ns).
    @inline(__always)
    public func nextTransmitStamp(on fd: Int32) throws(SystemError) -> (key: UInt32, time: UInt64)? {
        var key: UInt32 = 0
        var realtime: Int64 = 0
        let control = self.control
        while true {
            let result = try Posix.nonBlockingCall("recvmsg MSG_ERRQUEUE") {
                CBench_readTransmitStamp(fd, control.baseAddress, UInt(control.count), &key, &realtime)
            }
            switch result {
            case .wouldBlock: return nil
            case .processed(0): continue  // something else on the queue
            case .processed: return (key, clock.monotonic(fromRealtime: realtime))
            }
        }
    }
}

/// The offset between CLOCK_REALTIME, in which the kernel stamps sockets, and CLOCK_MONOTONIC, the run's clock.
///
/// Read as the tightest of many back-to-back (monotonic, realtime, monotonic) triples: the realtime reading lies
/// between the two monotonic ones, so the offset is known to within half their distance.
public struct KernelClockMapping: Sendable, Equatable {
    /// CLOCK_REALTIME − CLOCK_MONOTONIC, nanoseconds.
    public let offset: Int64
    /// How far `offset` may be from the truth: half the tightest triple's width, nanoseconds.
    public let uncertainty: UInt64

    public init(offset: Int64, uncertainty: UInt64) {
        self.offset = offset
        self.uncertainty = uncertainty
    }

    /// Reads the offset now, from the tightest of `triples` readings.
    public static func measure(triples: Int = 64) -> KernelClockMapping {
        var best = KernelClockMapping(offset: 0, uncertainty: .max)
        for _ in 0..<max(1, triples) {
            let before = MonotonicClock.now()
            let realtime = WallClock.nowUnixNanoseconds()
            let after = MonotonicClock.now()
            let width = after &- before
            if width / 2 < best.uncertainty {
                let middle = before + width / 2
                best = KernelClockMapping(
                    offset: Int64(bitPattern: realtime &- middle), uncertainty: (width + 1) / 2)
            }
        }
        return best
    }

    /// A CLOCK_REALTIME stamp (ns) on the monotonic clock; 0 (no stamp) stays 0.
    @inline(__always)
    public func monotonic(fromRealtime realtime: Int64) -> UInt64 {
        realtime == 0 ? 0 : UInt64(bitPattern: realtime &- offset)
    }
}
