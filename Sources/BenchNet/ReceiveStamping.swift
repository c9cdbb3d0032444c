import CBenchLinux
import Glibc

/// Switches the kernel's receive stamping on, and keeps it on for the rest of the process.
///
/// Linux stamps received packets only while some socket asks for it, and it switches that on later than the
/// setsockopt(2) that asks: the first request goes to a work queue (`net_enable_timestamp` defers the switch), and
/// the close of the last socket that asked switches it off again. On a busy machine, a run whose sockets were the only
/// ones asking got no receive stamp for its first messages (seen: every stamp of a 50 ms run missing). So the first
/// ``KernelTimestamps`` of a process calls ``switchOn()``: a UDP socket of its own asks for stamps, and stays open,
/// and the call returns once a datagram it sent itself came back stamped (within 2 s; after that, what is missing is
/// counted as missing, as before).
enum ReceiveStamping {
    /// Switches stamping on (once per process) and tells whether a stamp was seen.
    static func switchOn() -> Bool { isOn }

    private static let isOn: Bool = probe(within: 2_000_000_000)

    /// Sends one byte to itself over loopback until it comes back with a receive stamp, or `nanoseconds` pass.
    /// The socket is left open on success: it is what holds the kernel's switch on.
    private static func probe(within nanoseconds: UInt64) -> Bool {
        let fd = socket(AF_INET, CBenchSOCK_DGRAM | CBenchSOCK_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        guard ready, CBench_enableKernelTimestamps(fd, 0) == 0,
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0
        else {
            close(fd)
            return false
        }
        var byte: UInt8 = 0
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)
        defer { control.deallocate() }
        let deadline = MonotonicClock.now() + nanoseconds
        while MonotonicClock.now() < deadline {
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, &byte, 1, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            var stamp: Int64 = 0
            let count = CBench_receiveStamped(fd, &byte, 1, control.baseAddress, UInt(control.count), &stamp)
            if count > 0 && stamp != 0 { return true }
            if count <= 0 && errno != EAGAIN && errno != EINTR { break }
        }
        close(fd)
        return false
    }
}
