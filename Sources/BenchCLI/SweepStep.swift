import BenchClients
import BenchCore
import BenchScenarios

/// One run of a sweep: its configuration, the values of the swept settings that make it a step, and which repeat.
struct SweepStep {
    var configuration: RunConfiguration
    /// The swept settings of this step: `sweep.csv`'s column and value (`clients` 1000, `payload_bytes` 1024…), and
    /// the folder name's part (`clients-1000`, `payload-1KiB`).
    var settings: [(column: String, value: String, name: String)]
    /// 1-based; more than 1 only with `--repeat`.
    var repeatIndex: Int
    var repeats: Int

    /// The run folder's name in the sweep folder: the swept settings (`clients-1000-payload-1KiB`), then the repeat.
    var folderName: String {
        let step = settings.isEmpty ? configuration.scenario.rawValue : settings.map(\.name).joined(separator: "-")
        return repeats > 1 ? "\(step)-repeat-\(repeatIndex)" : step
    }

    /// The steps of a sweep: the cross product of every list, `clients` outermost, each `repeats` times with seeds
    /// derived from `base.seed` (repeat 1 keeps it), so the whole sweep repeats for the same `--seed`.
    static func crossProduct(
        _ base: RunConfiguration, clients: [Int], payloads: [Int], intervals: [UInt64], transports: [TransportKind],
        repeats: Int, configure: (inout RunConfiguration) -> Void
    ) -> [SweepStep] {
        var steps: [SweepStep] = []
        for count in clients {
            for payload in payloads {
                for interval in intervals {
                    for transport in transports {
                        var settings: [(column: String, value: String, name: String)] = []
                        if clients.count > 1 { settings.append(("clients", "\(count)", "clients-\(count)")) }
                        if payloads.count > 1 {
                            settings.append(("payload_bytes", "\(payload)", "payload-\(ByteSizeText.format(payload))"))
                        }
                        if intervals.count > 1 {
                            settings.append(("interval_ns", "\(interval)", "interval-\(DurationText.format(interval))"))
                        }
                        if transports.count > 1 {
                            settings.append(("transport", transport.rawValue, "transport-\(transport.rawValue)"))
                        }
                        for repeatIndex in 1...repeats {
                            var configuration = base
                            configuration.clients = count
                            configuration.payload = payload
                            configuration.interval = interval
                            configuration.transport = transport
                            if repeatIndex > 1 {
                                var random = SplitMix64(seed: base.seed, stream: UInt64(repeatIndex))
                                configuration.seed = random.next()
                            }
                            configure(&configuration)
                            steps.append(SweepStep(
                                configuration: configuration, settings: settings, repeatIndex: repeatIndex,
                                repeats: repeats))
                        }
                    }
                }
            }
        }
        return steps
    }
}
