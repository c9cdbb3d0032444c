import CBenchLinux

/// Why TLS could not be set up: OpenSSL missing, a certificate or key that does not read, a key that does not fit.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The system's OpenSSL 3, loaded at run time: building and testing never need it, only TLS runs do.
public enum OpenSSL {
    /// Loads libssl.so.3 once; throws, naming the package to install, where it is missing.
    public static func load() throws(TLSError) {
        var error = [CChar](repeating: 0, count: 512)
        guard CBenchTLS_load(&error, error.count) == 0 else {
            throw TLSError(
                "TLS needs OpenSSL 3 (libssl.so.3), which could not be loaded: \(text(error)); "
                    + "on Debian or Ubuntu: apt-get install -y libssl3")
        }
    }

    /// Runs `body` with a buffer for an error message; throws that message when `body` returns nil.
    static func call<T>(_ what: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> T?) throws(TLSError) -> T {
        var error = [CChar](repeating: 0, count: 512)
        let result = error.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        guard let result else { throw TLSError("\(what): \(text(error))") }
        return result
    }

    /// The NUL-terminated message in `buffer`.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An X.509 certificate, with its private key where this side has it (a server's).
public final class TLSCertificate: @unchecked Sendable {
    let certificate: UnsafeMutableRawPointer
    let key: UnsafeMutableRawPointer?

    /// The certificate in PEM text `pem`, and the key in `keyPEM` if given. OpenSSL must be loaded.
    public init(pem: [UInt8], keyPEM: [UInt8]? = nil) throws(TLSError) {
        certificate = try OpenSSL.call("not a PEM certificate") { error, size in
            pem.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    CBenchTLS_readCertificate($0.baseAddress, Int32(clamping: $0.count), error, size)
                }
            }
        }
        guard let keyPEM else {
            key = nil
            return
        }
        do {
            key = try OpenSSL.call("not a PEM private key") { error, size in
                keyPEM.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        CBenchTLS_readPrivateKey($0.baseAddress, Int32(clamping: $0.count), error, size)
                    }
                }
            }
        } catch {
            CBenchTLS_freeCertificate(certificate)
            throw error
        }
    }

    /// A fresh key and a self-signed certificate for it, named `commonName`, valid for a week.
    public init(selfSignedFor commonName: String) throws(TLSError) {
        var certificate: UnsafeMutableRawPointer?
        var key: UnsafeMutableRawPointer?
        _ = try OpenSSL.call("cannot make a self-signed certificate") { error, size in
            CBenchTLS_makeSelfSigned(commonName, &certificate, &key, error, size) == 0 ? () : nil
        }
        self.certificate = certificate!
        self.key = key
    }

    deinit {
        CBenchTLS_freeCertificate(certificate)
        if let key { CBenchTLS_freePrivateKey(key) }
    }

    /// SHA-256 of the certificate's DER encoding, as `openssl x509 -fingerprint -sha256` prints it (AB:CD:…).
    public var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: 32)
        guard CBenchTLS_fingerprint(certificate, &digest) == 0 else { return "" }
        let hex = Array("0123456789ABCDEF")
        return digest.map { String([hex[Int($0 >> 4)], hex[Int($0 & 15)]]) }.joined(separator: ":")
    }

    /// The certificate as PEM text.
    public var pem: String {
        var buffer = [CChar](repeating: 0, count: 16 << 10)
        let length = CBenchTLS_certificatePEM(certificate, &buffer, buffer.count)
        guard length > 0 && length <= buffer.count else { return "" }
        return String(decoding: buffer[0..<Int(length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The TLS setup shared by every connection of one side: OpenSSL's context, and for clients what they trust: one
/// pinned certificate, a chain to an authority (a bundle, or the system's store) with the server's name, or nothing.
public final class TLSContext: @unchecked Sendable {
    let context: UnsafeMutableRawPointer
    /// Clients: the one certificate the server must present.
    let pinned: TLSCertificate?
    /// Clients that verify the server's chain and name: what they trust, for messages (`--tls-ca ca.pem`, `the
    /// system's store`); nil when they do not verify (pinning, or `--tls-insecure`).
    public let verifiedAgainst: String?
    /// Servers: the certificate presented (kept alive with the context).
    private let own: TLSCertificate?

    /// A server's context presenting `certificate`, which must have its key.
    public init(serving certificate: TLSCertificate) throws(TLSError) {
        guard let key = certificate.key else { throw TLSError("the server's certificate comes without its key") }
        context = try OpenSSL.call("the server's certificate and key") { error, size in
            CBenchTLS_newContext(1, certificate.certificate, key, error, size)
        }
        own = certificate
        pinned = nil
        verifiedAgainst = nil
    }

    /// A client's context that accepts exactly `certificate` from the server (pinning: no chain, no names checked).
    public init(pinning certificate: TLSCertificate) throws(TLSError) {
        context = try OpenSSL.call("the clients' TLS context") { error, size in
            CBenchTLS_newContext(0, nil, nil, error, size)
        }
        own = nil
        pinned = certificate
        verifiedAgainst = nil
    }

    /// A client's context that verifies the server's chain up to one of `authorities` (a PEM bundle; nil: the
    /// system's store), and its name (``TransportSettings/tlsPeerName``), as TLS clients do. `source` names the
    /// authorities in messages.
    public init(verifyingWith authorities: [UInt8]?, source: String) throws(TLSError) {
        let context = try OpenSSL.call("the clients' TLS context") { error, size in
            CBenchTLS_newContext(0, nil, nil, error, size)
        }
        do {
            _ = try OpenSSL.call(source) { error, size in
                guard let authorities else { return CBenchTLS_trustSystemStore(context, error, size) == 0 ? () : nil }
                return authorities.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        CBenchTLS_trustAuthorities(context, $0.baseAddress, Int32(clamping: $0.count), error, size)
                    }
                } == 0 ? () : nil
            }
        } catch {
            CBenchTLS_freeContext(context)
            throw error
        }
        self.context = context
        own = nil
        pinned = nil
        verifiedAgainst = source
    }

    /// A client's context that accepts any certificate from the server (`--tls-insecure`): encrypted, not
    /// authenticated.
    public init(acceptingAnyServer: Void) throws(TLSError) {
        context = try OpenSSL.call("the clients' TLS context") { error, size in
            CBenchTLS_newContext(0, nil, nil, error, size)
        }
        own = nil
        pinned = nil
        verifiedAgainst = nil
    }

    deinit {
        CBenchTLS_freeContext(context)
    }
}

/// One connection's OpenSSL session; freed with it.
final class TLSSession {
    let session: UnsafeMutableRawPointer
    /// Where OpenSSL's error messages land.
    let error: UnsafeMutablePointer<CChar>
    static let errorSize = 512

    init(_ context: TLSContext, server: Bool) throws(ConnectionError) {
        guard let session = CBenchTLS_newSession(context.context, server ? 1 : 0) else {
            throw .tls("cannot start a TLS session (out of memory?)")
        }
        self.session = session
        self.error = .allocate(capacity: Self.errorSize)
        error.initialize(repeating: 0, count: Self.errorSize)
    }

    deinit {
        CBenchTLS_freeSession(session)
        error.deallocate()
    }

    var errorText: String { String(cString: error) }
}
