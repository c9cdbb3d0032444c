import Glibc

/// A numeric IPv4 or IPv6 address and a TCP port.
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    private enum Storage: Sendable, Equatable {
        case v4(address: UInt32, port: UInt16)  // both in network byte order
        case v6(address: [UInt8], port: UInt16)  // 16 bytes; port in network byte order
    }

    private let storage: Storage

    /// Parses a numeric address (`127.0.0.1`, `::1`) or `localhost` (127.0.0.1).
    ///
    /// - Returns: `nil` when `host` is neither.
    public init?(host: String, port: UInt16) {
        let host = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            storage = .v4(address: v4.s_addr, port: port.bigEndian)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            storage = .v6(address: withUnsafeBytes(of: &v6) { Array($0) }, port: port.bigEndian)
            return
        }
        return nil
    }

    /// A numeric address as ``init(host:port:)`` reads it, or else the first IPv4 address of the host name `host`
    /// (`getaddrinfo`: a Kubernetes Service's name, say); nil when it does not resolve.
    public init?(resolving host: String, port: UInt16) {
        if let numeric = SocketAddress(host: host, port: port) {
            self = numeric
            return
        }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result, let address = first.pointee.ai_addr else {
            return nil
        }
        defer { freeaddrinfo(result) }
        let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        storage = .v4(address: v4.s_addr, port: port.bigEndian)
    }

    /// Reads the address a socket is bound to (`getsockname`).
    public init(boundTo fd: Int32) throws(SystemError) {
        var raw = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &raw) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try Posix.call("getsockname") { getsockname(fd, address, &length) }
            }
        }
        if Int32(raw.ss_family) == AF_INET6 {
            let address = withUnsafeBytes(of: &raw) { $0.load(as: sockaddr_in6.self) }
            var bytes = address.sin6_addr
            storage = .v6(address: withUnsafeBytes(of: &bytes) { Array($0) }, port: address.sin6_port)
        } else {
            let address = withUnsafeBytes(of: &raw) { $0.load(as: sockaddr_in.self) }
            storage = .v4(address: address.sin_addr.s_addr, port: address.sin_port)
        }
    }

    /// The port, in host byte order.
    public var port: UInt16 {
        switch storage {
        case .v4(_, let port), .v6(_, let port): return UInt16(bigEndian: port)
        }
    }

    /// `AF_INET` or `AF_INET6`.
    public var family: Int32 {
        switch storage {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        }
    }

    /// The numeric host, as `inet_ntop` writes it.
    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch storage {
        case .v4(let address, _):
            var raw = in_addr(s_addr: address)
            inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
        case .v6(let address, _):
            address.withUnsafeBytes { _ = inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with this address as a `sockaddr` and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        switch storage {
        case .v4(let address, let port):
            var raw = sockaddr_in()
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = port
            raw.sin_addr.s_addr = address
            return try withUnsafePointer(to: &raw) { pointer throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                    try body(address, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let address, let port):
            var raw = sockaddr_in6()
            raw.sin6_family = sa_family_t(AF_INET6)
            raw.sin6_port = port
            withUnsafeMutableBytes(of: &raw.sin6_addr) { $0.copyBytes(from: address) }
            return try withUnsafePointer(to: &raw) { pointer throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                    try body(address, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
