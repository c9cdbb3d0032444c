import BenchNet
import BenchScenarios

/// `--io`: how the harness's event loops (the built-in server's, the clients', the chat relay's, a target's subscriber
/// groups') read and write their connections.
extension RunOptions {
    static var ioOption: OptionSpec {
        OptionSpec(
            "io", value: "engine",
            help: "How the harness reads and writes its connections (the built-in server's and clients', the chat "
                + "relay's and members', a target's subscribers'; a target's publisher stays on epoll): uring (io_uring: multishot receives into "
                + "provided buffers, each broadcast's and each pass's writes in one submission), epoll (a read and a "
                + "write call per socket), or auto (io_uring from \(IOEngine.autoUringClients) clients, where it "
                + "measured 0.8-0.97x epoll's CPU per message; epoll below). Where io_uring is refused "
                + "(kernel.io_uring_disabled, a container's seccomp profile) the run uses epoll and says so; run.csv's "
                + "io_engine says which ran. The environment's BENCH_IO sets the default.",
            default: IOEngineChoice.environmentDefault.rawValue)
    }

    /// `--io` as asked, and the note to print when io_uring is wanted for `clients` clients and refused here.
    static func readIOEngine(
        reader: OptionReader, parsed: ParsedOptions, clients: Int
    ) throws(UsageError) -> (IOEngineChoice, note: String?) {
        let text = parsed.value("io") ?? IOEngineChoice.environmentDefault.rawValue
        guard let choice = IOEngineChoice(rawValue: text) else {
            throw reader.invalid("io", "engine", text, "expected uring, epoll or auto")
        }
        return (choice, IOEngine.resolve(choice, clients: clients).note)
    }
}
