import BenchNet

/// Why a run could not be done at all. The command line exits 3 with this message.
public enum RunError: Error, Sendable, CustomStringConvertible {
    /// A setting is outside what a run can do (the command line refuses these before: exit 2).
    case invalidConfiguration(ConfigurationError)
    /// More clients than this process has file descriptors for (each costs two: its socket and the server's).
    case tooManyClients(requested: Int, descriptorLimit: Int, perClient: Int = 2)
    /// The run's raw timestamps would not fit comfortably in memory.
    case tooManyMessages(messages: Int, bytesNeeded: Int, bytesAvailable: Int)
    /// `--host` is not a numeric IPv4 or IPv6 address.
    case invalidHost(String)
    /// The server could not listen (port in use, address not on this machine...).
    case cannotListen(address: String, SystemError)
    /// `--pin` names a CPU this process may not run on.
    case invalidCPU(Int, allowed: CPUSet)
    /// Not every client connected and said hello.
    case setupFailed(String)
    /// A system call failed where nothing could go on (creating epoll or a thread).
    case system(SystemError)
    /// TLS could not be set up: OpenSSL missing, a certificate or key that does not read.
    case tls(TLSError)

    public var description: String {
        switch self {
        case .invalidConfiguration(let error):
            return "\(error)"
        case .tooManyClients(let requested, let limit, let perClient):
            let most = max(0, (limit - RunError.reservedDescriptors) / perClient)
            return "\(requested) clients need \(perClient * requested + RunError.reservedDescriptors) file descriptors, "
                + "but this process may open \(limit) (RLIMIT_NOFILE hard limit); at most \(most) clients fit"
        case .tooManyMessages(let messages, let needed, let available):
            return "\(messages) messages need about \(needed >> 20) MiB for their timestamps and statistics, more "
                + "than half of this machine's memory (\(available >> 20) MiB); use fewer clients or messages"
        case .invalidHost(let host):
            return "--host \(host) is not a numeric IPv4 or IPv6 address"
        case .cannotListen(let address, let error):
            return "cannot listen on \(address): \(error)"
        case .invalidCPU(let cpu, let allowed):
            return "--pin: CPU \(cpu) is not available to this process (available: \(allowed))"
        case .setupFailed(let reason):
            return "the clients could not be set up: \(reason)"
        case .system(let error):
            return "\(error)"
        case .tls(let error):
            return "\(error)"
        }
    }

    /// Descriptors kept free for everything but client sockets: listener, epolls, timers, report files.
    public static let reservedDescriptors = 64

    /// Memory a message costs from the first send to the last report: its timestamps and outcome in the
    /// recording, and its values in the analysis (sorted for exact percentiles); kernel stamps add three times
    /// and a value.
    public static func bytesPerMessage(_ timestamps: TimestampSource) -> Int {
        timestamps.usesKernel ? 104 : 72
    }
}
