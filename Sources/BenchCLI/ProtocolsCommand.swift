import BenchProtocols

/// `bench protocols` and `bench protocols show NAME`: the protocols `--protocol` ships as descriptions, and one of them
/// printed whole, to copy into a file of one's own and change.
enum ProtocolsCommand {
    static let spec = CommandSpec(
        name: "protocols", abstract: "List the protocols --protocol ships as descriptions.",
        overview: "The built-in descriptions of --protocol (a ws:// or wss:// target's protocol, in lines), each with its "
            + "first line. 'bench protocols show NAME' prints one whole: copy it into a file, change it, and give the "
            + "file to --protocol (docs/measuring-your-server.md explains each line).",
        options: [])

    static let showSpec = CommandSpec(
        name: "protocols show", abstract: "Print a built-in protocol description whole.",
        overview: "Prints the description --protocol NAME uses, as a file of yours would say it.",
        arguments: [("name", "A built-in description: \(names.joined(separator: ", ")).")], options: [])

    /// The built-in descriptions' names, in order.
    static var names: [String] { ProtocolDescription.builtIn.keys.sorted() }

    static func list() -> ExitCode {
        let width = names.map(\.count).max() ?? 0
        for name in names {
            let first = ProtocolDescription.builtIn[name]!.split(separator: "\n").first.map(String.init) ?? ""
            let title = first.hasPrefix("#") ? first.dropFirst().drop { $0 == " " } : Substring(first)
            Console.out(name + String(repeating: " ", count: width + 2 - name.count) + title + "\n")
        }
        return .success
    }

    static func show(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let name = parsed.positionals[0]
        guard let text = ProtocolDescription.builtIn[name] else {
            throw UsageError(
                message: "no built-in protocol '\(name)' (\(names.joined(separator: ", "))): a file of yours is given to "
                    + "--protocol as it is", command: showSpec.name)
        }
        Console.out(text + "\n")
        return .success
    }
}
