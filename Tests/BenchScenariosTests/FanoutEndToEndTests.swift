import BenchClients
import BenchCore
import BenchScenarios
import Testing

/// Real server, real clients on 127.0.0.1, real CSV files, checked against what the raw samples imply.
@Suite(.timeLimit(.minutes(10))) struct FanoutEndToEndTests {
    private static let clients = 12
    private static let messages = 40

    private static func configuration() -> RunConfiguration {
        var configuration = RunConfiguration(scenario: .fanout, seed: 7)
        configuration.clients = clients
        configuration.messages = messages
        configuration.warmup = 5
        configuration.interval = 2_000_000
        configuration.arrival = .fixed
        return configuration
    }

    @Test func everyMessageIsDeliveredAndEveryFileAgreesWithTheSamples() throws {
        let files = try RunFiles.run(Self.configuration())
        let clients = Self.clients
        let messages = Self.messages

        #expect(files.settings["status"] == "complete")
        #expect(files.settings["clients"] == "\(clients)")
        #expect(files.settings["messages"] == "\(messages)")
        #expect(files.settings["seed"] == "7")
        #expect(files.settings["payload_bytes"] == "64")
        #expect(files.settings["server_cpus"]?.isEmpty == false)

        // samples.csv: one row per (broadcast, client), warmup left out, nothing lost on loopback.
        #expect(files.samples.count == clients * messages)
        for row in files.samples {
            #expect(row["lost"] == "0")
            let t0 = try #require(row.int("t0_ns")), write = try #require(row.int("write_ns"))
            let received = try #require(row.int("recv_ns")), echo = try #require(row.int("echo_ns"))
            #expect(t0 <= write && write <= received && received <= echo)
            #expect(row.int("delivery_ns") == received - t0)
            #expect(row.int("rtt_ns") == echo - write)
        }
        let byBroadcast = Dictionary(grouping: files.samples) { $0.int("broadcast")! }
        #expect(byBroadcast.keys.sorted() == Array(0..<messages))
        for (_, rows) in byBroadcast {
            #expect(rows.map { $0.int("client")! }.sorted() == Array(0..<clients), "each client once per broadcast")
        }

        // broadcasts.csv: spread and completion recomputed from the samples.
        #expect(files.broadcasts.count == messages)
        for row in files.broadcasts {
            let rows = byBroadcast[row.int("broadcast")!]!
            let receives = rows.map { $0.int("recv_ns")! }
            #expect(row["complete"] == "1")
            #expect(row.int("delivered") == clients)
            #expect(row.int("lost") == 0)
            #expect(row.int("first_ns") == receives.min())
            #expect(row.int("last_ns") == receives.max())
            #expect(row.int("spread_ns") == receives.max()! - receives.min()!)
            #expect(row.int("completion_ns") == receives.max()! - rows[0].int("t0_ns")!)
        }

        // The order of the clients changes from one broadcast to the next.
        let orders = Set(byBroadcast.values.map { rows in
            rows.sorted { $0.int("write_ns")! < $1.int("write_ns")! }.map { $0.int("client")! }
        })
        #expect(orders.count > 1)

        // summary.csv agrees with exact statistics of the raw values.
        let raw: [String: [Int]] = [
            "delivery": files.samples.map { $0.int("delivery_ns")! },
            "rtt": files.samples.map { $0.int("rtt_ns")! },
            "spread": files.broadcasts.map { $0.int("spread_ns")! },
            "completion": files.broadcasts.map { $0.int("completion_ns")! },
        ]
        for (metric, values) in raw {
            let sorted = values.sorted()
            let row = try #require(files.summary[metric])
            #expect(row.int("count") == values.count)
            #expect(row.int("lost") == 0)
            #expect(row.double("pct_under") == 100)
            #expect(row.double("min_us") == Double(sorted.first!) / 1000)
            #expect(row.double("max_us") == Double(sorted.last!) / 1000)
            let mean = Double(values.reduce(0, +)) / Double(values.count) / 1000
            #expect(abs(row.double("mean_us")! - mean) <= 0.001)
            for (column, percentile) in [("p50_us", 50.0), ("p90_us", 90), ("p99_us", 99), ("p999_us", 99.9)] {
                #expect(row.double(column) == Double(exactPercentile(sorted, percentile)) / 1000, "\(metric) \(column)")
            }
        }

        // histogram.csv holds every delivered value once.
        let deliveryBins = files.histogram.filter { $0["metric"] == "delivery" }
        #expect(deliveryBins.map { $0.int("count")! }.reduce(0, +) == clients * messages)
        #expect(deliveryBins.last?.double("cumulative_pct") == 100)
    }

    /// `--source-addresses`: the clients leave from 127.0.0.2 and 127.0.0.3 in turn, and are measured like any.
    @Test func clientsFromSeveralSourceAddressesAreMeasuredLikeAny() throws {
        var configuration = Self.configuration()
        configuration.sourceAddresses = ["127.0.0.2", "127.0.0.3"]
        configuration.clientThreads = 2
        let files = try RunFiles.run(configuration)
        #expect(files.settings["status"] == "complete")
        #expect(files.samples.count == Self.clients * Self.messages && files.samples.allSatisfy { $0["lost"] == "0" })
    }

    @Test func aTimeoutShorterThanAnyRoundTripCountsEveryMessageLost() throws {
        var configuration = Self.configuration()
        configuration.timeout = 1_000  // 1 µs: nothing on a real socket is this fast
        configuration.messages = 10
        let files = try RunFiles.run(configuration)

        #expect(files.samples.count == Self.clients * 10)
        #expect(files.samples.allSatisfy { $0["lost"] == "1" && $0["delivery_ns"] == "" && $0["rtt_ns"] == "" })
        #expect(files.broadcasts.allSatisfy { $0["complete"] == "0" && $0["spread_ns"] == "" })
        for metric in ["delivery", "rtt"] {
            #expect(files.summary[metric]?.int("count") == 0)
            #expect(files.summary[metric]?.int("lost") == Self.clients * 10)
            #expect(files.summary[metric]?.double("pct_under") == 0)
        }
        #expect(files.summary["spread"]?.int("lost") == 10)
        #expect(files.summary["spread"]?["p50_us"] == "")
    }

    @Test(arguments: [(2, TimestampSource.kernel), (3, .user)])
    func serverThreadsShareEachBroadcastAndT0IsTheEarliestWrite(threads: Int, timestamps: TimestampSource) throws {
        var configuration = Self.configuration()
        configuration.serverThreads = threads
        configuration.clientThreads = 2
        configuration.timestamps = timestamps
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete)
        let analysis = RunAnalysis(recording: recording)
        #expect(analysis.summary(of: .delivery)?.lost == 0)
        #expect(analysis.summary(of: .delivery)?.count == Self.clients * Self.messages)
        for sequence in 0..<configuration.sequencesPerClient {
            let writes = (0..<Self.clients).map { recording.ledger.written[recording.ledger.messageIndex(sequence: sequence, client: $0)] }
            #expect(writes.allSatisfy { $0 != 0 })
            #expect(recording.ledger.broadcastStart[sequence] == writes.min(), "t0 is the earliest first write of any thread")
            if timestamps == .kernel {
                let stamped = (0..<Self.clients).filter {
                    recording.ledger.writtenKernel[recording.ledger.messageIndex(sequence: sequence, client: $0)] != 0
                }
                #expect(stamped.count == threads, "each thread stamps its first write")
            }
        }
        #expect(recording.missingKernelStamps == (0, 0))
    }
}

