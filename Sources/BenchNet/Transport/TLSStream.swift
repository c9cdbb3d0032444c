import CBenchLinux

/// TLS 1.2 or 1.3 below the frames, through OpenSSL reading and writing memory: the connection still makes every
/// socket call (kernel stamps, its queue), OpenSSL only encrypts and decrypts. A client checks that the server
/// presents exactly the pinned certificate once the handshake ends, or has OpenSSL verify its chain and name during it.
///
/// Partial writes: into memory a write is whole, so OpenSSL's rule to retry the same buffer never arises; what the
/// socket does not take waits, already encrypted, in the connection's queue.
public struct TLSStream: StreamLayer {
    private let session: TLSSession
    private let pinned: TLSCertificate?
    /// What a verifying client trusts, for messages.
    private let verifiedAgainst: String?
    private let role: TransportRole
    /// A client's ALPN offer, which the server must choose.
    private let alpn: String?
    public private(set) var isEstablished = false

    public init(role: TransportRole, settings: TransportSettings) throws(ConnectionError) {
        guard let context = settings.tls else { throw .tls("no TLS context for this run") }
        self.session = try TLSSession(context, server: role == .server)
        self.pinned = context.pinned
        self.verifiedAgainst = role == .client ? context.verifiedAgainst : nil
        self.role = role
        self.alpn = role == .client ? settings.tlsALPN : nil
        if let alpn {
            let offer = [UInt8(alpn.utf8.count)] + Array(alpn.utf8)
            guard CBenchTLS_setALPN(session.session, offer, Int32(offer.count)) == 0 else { throw .tls("cannot offer \(alpn) by ALPN") }
        }
        if role == .client, let name = settings.tlsServerName {
            guard CBenchTLS_setServerName(session.session, name) == 0 else { throw .tls("cannot send the server name \(name)") }
        }
        if let verifiedAgainst {
            guard let name = settings.tlsPeerName, CBenchTLS_expectName(session.session, name) == 0 else {
                throw .tls("no name to verify the server's certificate against (\(verifiedAgainst))")
            }
        }
    }

    public mutating func start(_ write: WireWriter) throws(ConnectionError) {
        if role == .client { try handshake(write) }
    }

    @inline(__always)
    public mutating func nextPlaintext(
        in buffer: UnsafeMutableRawBufferPointer, count: inout Int, write: WireWriter
    ) throws(ConnectionError) -> UnsafeMutableRawBufferPointer? {
        if count > 0 {
            guard CBenchTLS_feed(session.session, buffer.baseAddress, Int32(count)) == 0 else {
                throw .tls("cannot take the bytes read (out of memory?)")
            }
            count = 0
        }
        if !isEstablished {
            try handshake(write)
            guard isEstablished else { return nil }
        }
        let result = CBenchTLS_read(
            session.session, buffer.baseAddress, Int32(clamping: buffer.count), session.error, TLSSession.errorSize)
        flush(write)  // a read may have answers to send (key updates, alerts)
        switch result {
        case 0: return nil
        case -2: throw .closedByPeer("TLS close_notify")
        case ..<0: throw .tls(session.errorText)
        default: return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(result)])
        }
    }

    @inline(__always)
    public mutating func send(head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, write: WireWriter) -> Bool {
        let taken = CBenchTLS_write(
            session.session, head.baseAddress, Int32(head.count), body.baseAddress, Int32(body.count))
        guard taken == head.count + body.count else { return false }
        return flush(write)
    }

    public mutating func close(_ write: WireWriter) {
        guard isEstablished else { return }
        CBenchTLS_shutdown(session.session)
        flush(write)
    }

    private mutating func handshake(_ write: WireWriter) throws(ConnectionError) {
        let result = CBenchTLS_handshake(session.session, session.error, TLSSession.errorSize)
        flush(write)
        switch result {
        case 1:
            if let pinned, CBenchTLS_peerIs(session.session, pinned.certificate) != 1 {
                throw .tls("the server's certificate is not the pinned one (SHA-256 \(pinned.sha256Fingerprint))")
            }
            if let alpn {
                var chosen = [CChar](repeating: 0, count: 256)
                let length = CBenchTLS_selectedALPN(session.session, &chosen, Int32(chosen.count))
                let name = String(decoding: chosen.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard name == alpn else {
                    throw .tls("the server chose \(length == 0 ? "no protocol" : "\"\(name)\"") by ALPN, not \(alpn)")
                }
            }
            isEstablished = true
        case 0: return
        case -2: throw .closedByPeer("TLS close_notify during the handshake")
        default:
            throw .tls("handshake failed: \(session.errorText)" + (verifiedAgainst.map { " (trusted: \($0))" } ?? ""))
        }
    }

    /// Hands what OpenSSL encrypted to the connection's socket (or queue).
    @discardableResult
    private func flush(_ write: WireWriter) -> Bool {
        var bytes: UnsafeRawPointer?
        let length = CBenchTLS_output(session.session, &bytes)
        guard length > 0, let bytes else { return true }
        defer { CBenchTLS_clearOutput(session.session) }
        return write(UnsafeRawBufferPointer(start: nil, count: 0), UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
