import CBenchLinux
import Glibc

/// Creating, listening on and connecting TCP sockets, the way the harness wants them: non-blocking,
/// close-on-exec, and with `TCP_NODELAY` so that every small message leaves at once.
public enum TCPSocket {
    /// Binds and listens on `address` (port 0: any free port). Returns the non-blocking listening descriptor and
    /// the address it is bound to, with its port. Nothing stays open when it throws.
    public static func listen(
        on address: SocketAddress,
        backlog: Int32 = 4096
    ) throws(SystemError) -> (descriptor: Int32, address: SocketAddress) {
        let socket = Descriptor(owning: try makeSocket(family: address.family), owner: "a listener being set up")
        let fd = socket.rawValue  // closed with `socket` when a step throws
        try Posix.setSocketOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        _ = try address.withSockAddr { pointer, length throws(SystemError) in
            try Posix.call("bind") { bind(fd, pointer, length) }
        }
        _ = try Posix.call("listen") { Glibc.listen(fd, backlog) }
        let bound = try SocketAddress(boundTo: fd)
        return (socket.relinquish(), bound)
    }

    /// Accepts one pending connection as a non-blocking socket with `TCP_NODELAY`; nil when none is pending.
    public static func accept(from listener: Int32) throws(SystemError) -> Descriptor? {
        let result = try Posix.nonBlockingCall("accept4") {
            CBench_accept4(listener, CBenchSOCK_NONBLOCK | CBenchSOCK_CLOEXEC)
        }
        guard case .processed(let fd) = result else { return nil }
        let socket = Descriptor(owning: fd, owner: "an accepted socket")
        try disableNagle(socket.rawValue)  // a throw closes it
        return socket
    }

    /// Connects to `address`, waiting for the handshake, then makes the socket non-blocking with `TCP_NODELAY`.
    public static func connect(to address: SocketAddress) throws(SystemError) -> Int32 {
        let socket = Descriptor(owning: try makeSocket(family: address.family, nonBlocking: false), owner: "a connecting socket")
        let fd = socket.rawValue  // a throw below closes the socket
        _ = try address.withSockAddr { pointer, length throws(SystemError) in
            try Posix.call("connect") { Glibc.connect(fd, pointer, length) }
        }
        try disableNagle(fd)
        try Posix.setNonBlocking(fd)
        return socket.relinquish()
    }

    /// Starts a non-blocking connect to `address` and returns the socket (with `TCP_NODELAY`) at once; the connect
    /// ends when the socket turns writable, and its outcome is then in `SO_ERROR` (``Connection`` reads it).
    /// With a `source`, the connection leaves from that address (its port still chosen by the kernel at connect
    /// time, `IP_BIND_ADDRESS_NO_PORT`, so that the ephemeral ports are shared per destination): several source
    /// addresses multiply the connections one machine can open to one server beyond its ephemeral port range.
    public static func startConnecting(
        to address: SocketAddress, from source: SocketAddress? = nil
    ) throws(SystemError) -> Descriptor {
        let socket = Descriptor(owning: try makeSocket(family: address.family), owner: "a connecting socket")
        let fd = socket.rawValue  // a throw below closes the socket
        try disableNagle(fd)
        if let source {
            if source.family == AF_INET {
                try Posix.setSocketOption(fd, level: Int32(IPPROTO_IP), name: IP_BIND_ADDRESS_NO_PORT, value: 1)
            }
            guard source.family == address.family else {
                throw SystemError("connect from source address \(source.host) to \(address)", errno: EAFNOSUPPORT)
            }
            do throws(SystemError) {
                _ = try source.withSockAddr { pointer, length throws(SystemError) in
                    try Posix.call("bind") { bind(fd, pointer, length) }
                }
            } catch {
                throw SystemError("bind to source address \(source.host)", errno: error.errno)
            }
        }
        let result = try address.withSockAddr { pointer, length throws(SystemError) in Glibc.connect(fd, pointer, length) }
        if result != 0 && Glibc.errno != EINPROGRESS && Glibc.errno != EINTR {
            throw SystemError("connect", errno: Glibc.errno)
        }
        return socket
    }

    /// Asks the kernel to busy-poll the device queue for `fd`'s reads (SO_BUSY_POLL, 50 µs), where it allows it
    /// (raising it needs CAP_NET_ADMIN; loopback has no queue to poll). Best effort: the harness spins either way.
    public static func pollBusily(_ fd: Int32) {
        try? Posix.setSocketOption(fd, level: SOL_SOCKET, name: SO_BUSY_POLL, value: 50)
    }

    private static func makeSocket(family: Int32, nonBlocking: Bool = true) throws(SystemError) -> Int32 {
        let flags = Int32(SOCK_STREAM.rawValue) | CBenchSOCK_CLOEXEC | (nonBlocking ? CBenchSOCK_NONBLOCK : 0)
        return try Posix.call("socket") { socket(family, flags, 0) }
    }

    private static func disableNagle(_ fd: Int32) throws(SystemError) {
        try Posix.setSocketOption(fd, level: Int32(IPPROTO_TCP), name: CBenchTCP_NODELAY, value: 1)
    }
}
