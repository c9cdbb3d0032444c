import BenchNet

/// `--tls-ca`, `--tls-pin` or `--tls-insecure` as the command line gave them: how a run's TLS clients trust the server.
/// Without any, the built-in server's clients pin its own certificate, and a target's verify its chain against the
/// system's store.
public enum TLSTrustOption: Sendable, Equatable {
    /// `--tls-ca FILE`: a PEM bundle of authorities; the server's chain and name are verified against it.
    case authorities(path: String)
    /// `--tls-pin FILE`: exactly this certificate, no chain, no name.
    case pin(path: String)
    /// `--tls-insecure`: nothing checked.
    case insecure

    /// The option as a command line gives it, for a child process.
    public var arguments: [String] {
        switch self {
        case .authorities(let path): return ["--tls-ca", path]
        case .pin(let path): return ["--tls-pin", path]
        case .insecure: return ["--tls-insecure"]
        }
    }

    /// The most a `--tls-ca` bundle or a `--tls-pin` certificate may hold: it is carried to agents in one field of their
    /// client spec.
    public static let largestBundle = 60 << 10
}

/// How a TLS client trusts the server, its certificates read: what a client context is made of, and what a client
/// spec carries to children and agents.
public enum TLSTrust: Sendable, Equatable {
    /// Exactly the certificate in this PEM text; `source` names it in messages.
    case pinned(pem: [UInt8], source: String)
    /// A chain to one of the authorities of this PEM bundle (nil: the system's store), for the server's name; `source`
    /// names them in messages.
    case authorities(pem: [UInt8]?, source: String)
    /// Nothing checked.
    case insecure

    /// The trust `option` asks for, its file read; `fallback` without one.
    public static func reading(_ option: TLSTrustOption?, otherwise fallback: TLSTrust) throws(TLSError) -> TLSTrust {
        switch option {
        case nil: return fallback
        case .insecure: return .insecure
        case .pin(let path):
            return .pinned(pem: try read(path, "--tls-pin", limit: TLSTrustOption.largestBundle), source: "--tls-pin \(path)")
        case .authorities(let path):
            return .authorities(pem: try read(path, "--tls-ca", limit: TLSTrustOption.largestBundle), source: "--tls-ca \(path)")
        }
    }

    /// The system's store, verifying the server's name: a target's trust by default.
    public static let systemStore = TLSTrust.authorities(pem: nil, source: "the system's store")

    /// A client context that trusts so. OpenSSL must be loaded.
    public func clientContext() throws(TLSError) -> TLSContext {
        switch self {
        case .pinned(let pem, let source):
            do {
                return try TLSContext(pinning: try TLSCertificate(pem: pem))
            } catch {
                throw TLSError("\(source): \(error)")
            }
        case .authorities(let pem, let source): return try TLSContext(verifyingWith: pem, source: source)
        case .insecure: return try TLSContext(acceptingAnyServer: ())
        }
    }

    /// The file at `path` an `option` names (at most `limit` bytes), its failure said with both.
    public static func read(_ path: String, _ option: String, limit: Int) throws(TLSError) -> [UInt8] {
        do {
            return try Posix.readFile(path, limit: limit)
        } catch {
            throw TLSError("\(option) \(path): \(error)")
        }
    }
}
