import BenchClients
import BenchCore
import BenchProtocols
import BenchScenarios

/// `--link SPEC`: the link the clients sit behind, emulated in this process between them and the server.
extension RunOptions {
    static var linkOption: OptionSpec {
        OptionSpec(
            "link", value: "spec",
            help: "Put every client behind an emulated link: a preset (\(LinkProfile.presets.map(\.name).joined(separator: ", ")); "
                + "bench links lists their numbers), parameters (delay=40ms,jitter=10ms,rate=1mbit,loss=2%; down- and "
                + "up- forms; nat-idle=30s; blackout=5s@30s,every=60s), a preset then parameters (3g,loss=1%), or a mix "
                + "of presets dealt among the clients by --seed (lte:70%,3g:20%,none:10%; none: the direct path), "
                + "every metric then reported per link group. Emulated in user space in this process, on a thread of "
                + "its own beside the clients' threads.")
    }

    /// Reads `--link` into `configuration`; refused with `--source-addresses` (the clients connect to the link).
    static func readLink(
        into configuration: inout RunConfiguration, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        configuration.link = try link(parsed, reader: reader, command: command)
        if configuration.link?.isMix == true, configuration.scenario == .chat,
            configuration.target?.url.scheme.record.subscribersCannotPublish == true
        {
            throw UsageError(
                message: "a mix of links with a Redis chat is not built yet: each client thread's members publish over one "
                    + "connection, which can sit behind one link only", command: command)
        }
    }

    /// `--link` as every command that takes it reads it (a run's, an agent's): nil without it; a text that does not
    /// read, or `--source-addresses` beside it, is a usage error that says why.
    static func link(_ parsed: ParsedOptions, reader: OptionReader, command: String) throws(UsageError) -> LinkMix? {
        guard let text = parsed.value("link") else { return nil }
        let link: LinkMix
        do throws(LinkProfile.Invalid) {
            link = try LinkMix(parsing: text)
        } catch {
            throw reader.invalid("link", "spec", text, error.reason)
        }
        if parsed.value("source-addresses") != nil {
            throw UsageError(
                message: "--source-addresses does not apply with --link: the clients connect to the link on loopback, "
                    + "and the link to the server", command: command)
        }
        return link
    }
}
