/// A command line that cannot be run: the message says what is wrong; the command is named for the usage line.
struct UsageError: Error, Equatable {
    /// One line saying what is wrong, without the `Error: ` prefix.
    let message: String
    /// The command whose usage to show (`fanout`), or nil for `bench` itself.
    let command: String?
}
