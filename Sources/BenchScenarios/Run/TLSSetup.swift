import BenchClients
import BenchNet

/// The TLS contexts of a run: the server's certificate (from `--tls-cert`/`--tls-key`, or made for the run) and how its
/// clients trust it (`--tls-ca`, `--tls-pin`, `--tls-insecure`, or by default the server's own certificate pinned).
enum TLSSetup {
    /// Loads OpenSSL and returns the server's certificate, the server's context and the clients'.
    static func contexts(
        for configuration: RunConfiguration
    ) throws(TLSError) -> (certificate: TLSCertificate, server: TLSContext, clients: TLSContext, trust: TLSTrust) {
        try OpenSSL.load()
        let certificate: TLSCertificate
        if let certificatePath = configuration.tlsCertificatePath, let keyPath = configuration.tlsKeyPath {
            let files = "--tls-cert \(certificatePath) and --tls-key \(keyPath)"
            certificate = try naming(files) { () throws(TLSError) in
                try TLSCertificate(
                    pem: try TLSTrust.read(certificatePath, "--tls-cert", limit: 1 << 20),
                    keyPEM: try TLSTrust.read(keyPath, "--tls-key", limit: 1 << 20))
            }
        } else {
            certificate = try TLSCertificate(selfSignedFor: "bench ephemeral")
        }
        let trust = try TLSTrust.reading(
            configuration.tlsTrust, otherwise: .pinned(pem: Array(certificate.pem.utf8), source: "the server's certificate"))
        return (certificate, try TLSContext(serving: certificate), try trust.clientContext(), trust)
    }

    /// `body`'s result, its error prefixed with the option and file it is about.
    private static func naming<T>(_ subject: String, _ body: () throws(TLSError) -> T) throws(TLSError) -> T {
        do {
            return try body()
        } catch {
            throw error.description.hasPrefix("--") ? error : TLSError("\(subject): \(error)")
        }
    }

}
