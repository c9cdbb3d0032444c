import BenchClients
import BenchCore
import BenchNet
import BenchScenarios

/// Reads typed values out of ``ParsedOptions``, with argument-parser-style error messages.
struct OptionReader {
    let parsed: ParsedOptions
    let command: String

    func invalid(_ name: String, _ placeholder: String, _ text: String, _ why: String) -> UsageError {
        UsageError(message: "The value '\(text)' is invalid for '--\(name) <\(placeholder)>': \(why)", command: command)
    }

    /// `--accept`: the reasons a verdict would be inconclusive for that the user takes as they are. Refused for a
    /// word that names no reason, and where nothing is judged (`judges`: a run without `--threshold`).
    func acceptedReasons(judges: Bool) throws(UsageError) -> Set<InconclusiveReason> {
        guard let text = parsed.value("accept") else { return [] }
        let known = InconclusiveReason.allCases.map(\.rawValue).joined(separator: ", ")
        let (accepted, unknown) = InconclusiveReason.parseList(text)
        guard unknown.isEmpty else { throw invalid("accept", "reasons", text, "'\(unknown[0])' is none of \(known)") }
        guard judges else {
            throw UsageError(
                message: "--accept applies to the verdicts of --threshold: give one, or leave --accept out", command: command)
        }
        return accepted
    }

    /// The help of `--accept`.
    static let acceptOption = OptionSpec(
        "accept", value: "reasons",
        help: "Judge thresholds as measured even when the run is no measurement of the server for these reasons "
            + "(comma-separated: interrupted, incomplete, failed, saturated, no-values); otherwise such a verdict is "
            + "inconclusive, exit 4.")

    func integer(_ name: String, placeholder: String, in range: ClosedRange<Int>, default value: Int) throws(UsageError) -> Int {
        guard let text = parsed.value(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw invalid(name, placeholder, text, "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A comma list of integers in `range` (a sweep); `[value]` when the option is not given.
    func integers(_ name: String, placeholder: String, in range: ClosedRange<Int>, default value: Int) throws(UsageError) -> [Int] {
        guard let text = parsed.value(name) else { return [value] }
        var numbers: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let number = Int(part), range.contains(number) else {
                let what = text.contains(",") ? "integers" : "an integer"
                throw invalid(
                    name, placeholder, text, "expected \(what) from \(range.lowerBound) to \(range.upperBound)"
                        + (text.contains(",") ? ", comma-separated" : ""))
            }
            guard !numbers.contains(number) else { throw invalid(name, placeholder, text, "each value once") }
            numbers.append(number)
        }
        return numbers
    }

    /// A comma list of durations (a sweep); `[value]` when the option is not given.
    func durations(_ name: String, allowZero: Bool, default value: UInt64) throws(UsageError) -> [UInt64] {
        guard let text = parsed.value(name) else { return [value] }
        var values: [UInt64] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let value = try duration(name, String(part), allowZero: allowZero, in: text)
            guard !values.contains(value) else { throw invalid(name, "duration", text, "each value once") }
            values.append(value)
        }
        return values
    }

    /// A duration of at most ``RunConfiguration/Limits/longestDuration``.
    func duration(_ name: String, allowZero: Bool, default value: UInt64) throws(UsageError) -> UInt64 {
        guard let text = parsed.value(name) else { return value }
        return try duration(name, text, allowZero: allowZero, in: text)
    }

    /// `text`, one duration of option `name`'s value `whole`.
    private func duration(_ name: String, _ text: String, allowZero: Bool, in whole: String) throws(UsageError) -> UInt64 {
        let nanoseconds: UInt64
        do {
            nanoseconds = try DurationText.parse(text)
        } catch {
            throw invalid(name, "duration", whole, error.reason)
        }
        guard allowZero || nanoseconds > 0 else { throw invalid(name, "duration", whole, "must be more than 0") }
        let longest = RunConfiguration.Limits.longestDuration
        guard nanoseconds <= longest else {
            throw invalid(name, "duration", whole, "must be at most \(DurationText.format(longest)) (a day)")
        }
        return nanoseconds
    }

    func payloads(_ text: String) throws(UsageError) -> [Int] {
        var sizes: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let size: Int
            do {
                size = try ByteSizeText.parse(String(part))
            } catch {
                throw invalid("payload", "bytes", text, error.reason)
            }
            guard size >= WireFormat.minimumMessageSize && size <= WireFormat.maximumFrameSize else {
                throw invalid(
                    "payload", "bytes", text,
                    "each size must be from \(WireFormat.minimumMessageSize)B (the message header) to "
                        + ByteSizeText.format(WireFormat.maximumFrameSize))
            }
            guard !sizes.contains(size) else { throw invalid("payload", "bytes", text, "each size once") }
            sizes.append(size)
        }
        return sizes
    }

    /// `--tls-cert` and `--tls-key`: files that can be read, the two together, for the built-in server over TLS.
    func tlsFiles(for transport: TransportKind) throws(UsageError) -> (String?, String?) {
        let names = ["tls-cert", "tls-key"]
        let paths = names.map { parsed.value($0) }
        for (name, path) in zip(names, paths) {
            guard let path else { continue }
            guard transport.usesTLS else { throw invalid(name, "pem", path, "needs --transport tls or wss") }
            guard Posix.isReadableFile(path) else { throw invalid(name, "pem", path, "cannot read this file") }
        }
        guard (paths[0] == nil) == (paths[1] == nil) else {
            let (given, missing) = paths[0] == nil ? ("tls-key", "tls-cert") : ("tls-cert", "tls-key")
            throw UsageError(
                message: "--\(given) needs --\(missing) <pem>: the server's certificate and its key go together",
                command: command)
        }
        return (paths[0], paths[1])
    }

    /// `--tls-ca FILE`, `--tls-pin FILE` or `--tls-insecure`: how TLS clients trust the server; at most one, and only
    /// where the clients speak TLS (`secure`, else refused saying `why`); a file that reads, a bundle no larger than
    /// can be carried to agents.
    func tlsTrust(secure: Bool, why: String) throws(UsageError) -> TLSTrustOption? {
        let given = ["tls-ca", "tls-pin", "tls-insecure"].filter { parsed.value($0) != nil || parsed.has($0) }
        guard given.count <= 1 else {
            throw UsageError(
                message: given.map { "--\($0)" }.joined(separator: " and ") + " say different things: give one of "
                    + "--tls-ca (verify the chain and name), --tls-pin (exactly this certificate) or --tls-insecure",
                command: command)
        }
        guard let name = given.first else { return nil }
        guard secure else { throw UsageError(message: "--\(name) \(why)", command: command) }
        if name == "tls-insecure" { return .insecure }
        let path = parsed.value(name)!
        guard Posix.isReadableFile(path) else { throw invalid(name, "pem", path, "cannot read this file") }
        // Either file is carried to agents in one field of their client spec.
        guard let size = Posix.fileSize(path), size <= TLSTrustOption.largestBundle else {
            throw invalid(name, "pem", path, name == "tls-pin"
                ? "one certificate of at most \(TLSTrustOption.largestBundle >> 10) KiB"
                : "a bundle of at most \(TLSTrustOption.largestBundle >> 10) KiB (the authorities this server's "
                    + "certificate chains to, not the whole system store: that one is the default)")
        }
        return name == "tls-ca" ? .authorities(path: path) : .pin(path: path)
    }

    /// The TLS trust options' help, for runs and agents.
    static let tlsTrustOptions = [
        OptionSpec(
            "tls-ca", value: "pem",
            help: "TLS: verify the server's chain up to these authorities (a PEM bundle) and its name, as TLS clients do.",
            default: "a target: the system's store; the built-in server: its own certificate, pinned"),
        OptionSpec("tls-pin", value: "pem", help: "TLS: accept exactly this certificate from the server, no chain, no name."),
        OptionSpec("tls-insecure", help: "TLS: accept any certificate (encrypted, not authenticated; said on stderr)."),
    ]

    func cpuPair(_ text: String) throws(UsageError) -> (Int, Int) {
        let allowed = CPUPlacement.allowedCPUs()
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let server = parts[0], let client = parts[1] else {
            throw invalid("pin", "server-cpu,client-cpu", text, "expected two CPU numbers, e.g. 0,1")
        }
        for cpu in [server, client] where !allowed.contains(cpu) {
            throw invalid("pin", "server-cpu,client-cpu", text, "CPU \(cpu) is not available (available: \(allowed))")
        }
        return (server, client)
    }

    /// `host:port` split at its last colon (so `::1:7000` works too); nil without a colon or a port number.
    static func hostAndPort(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        return (String(text[..<colon]), port)
    }
}
