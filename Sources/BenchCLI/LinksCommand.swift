import BenchCore

/// `bench links`: the presets `--link` takes, with their numbers.
enum LinksCommand {
    static let spec = CommandSpec(
        name: "links", abstract: "List the link presets --link takes, with their numbers.",
        overview: "The presets of --link, as Apple's Network Link Conditioner ships them: each direction's rate and "
            + "one-way delay (and loss). Parameters after a preset change it: --link '3g,loss=1%'.",
        options: [],
        notes: [
            "Parameters: delay, jitter, rate (1mbit, 500kbit), loss (2%), each for both directions or as down-… (server "
                + "to client) and up-… (client to server); nat-idle=30s (a NAT that forgets a connection idle that long); "
                + "blackout=5s@30s and every=60s (no bytes either way for 5 s, 30 s after the link's start, every 60 s).",
            "The model: TCP's view of the link. Loss holds every byte behind a lost segment for a retransmission "
                + "timeout (200 ms and the link's round trip, doubling); not a packet-level emulator.",
        ])

    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let rows = LinkProfile.presets.map { ($0.name, $0.profile.summary) }
        let width = rows.map(\.0.count).max() ?? 0
        Console.out(rows.map { $0.0 + String(repeating: " ", count: width + 2 - $0.0.count) + $0.1 + "\n" }.joined())
        return .success
    }
}
