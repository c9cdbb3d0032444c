@testable import BenchClients
import BenchCore
import Testing

@testable import BenchScenarios

/// Settings past what a run's arithmetic holds are refused before anything starts, naming the option and the
/// limit: whoever builds a configuration (the command line, a test, another program) cannot make a run trap.
@Suite(.timeLimit(.minutes(10))) struct RunConfigurationLimitsTests {
    private static func configuration(_ change: (inout RunConfiguration) -> Void) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        change(&configuration)
        return configuration
    }

    @Test(arguments: [
        ("heartbeat", configuration { $0.heartbeat = 7_000_000_000 * 1_000_000_000 }),
        ("interval", configuration { $0.interval = .max }),
        ("timeout", configuration { $0.timeout = 18_446_744_073 * 1_000_000_000 }),
        ("timeout", configuration { $0.timeout = 0 }),
        ("under", configuration { $0.under = .max }),
        ("dead-after", configuration { $0.deadAfter = .max }),
        ("interval", configuration { $0.interval = 86_400_000_000_000; $0.messages = 1_000 }),
        ("clients", configuration { $0.clients = 0 }),
        ("messages", configuration { $0.messages = 100_000_001 }),
        ("payload", configuration { $0.payload = 16 }),
        ("max-queue", configuration { $0.maximumQueuedBytes = .max }),
        ("clients", configuration { $0.localClientRange = 0..<51 }),
        // An interval end per 10 µs, each syncing three files: a 1 s run took 28 s, its server waiting on its writer.
        ("report-every", configuration { $0.reportEvery = 10_000 }),
    ])
    func aSettingPastItsLimitIsRefusedWithItsOptionNamed(option: String, configuration: RunConfiguration) {
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch {
            #expect(error.option == option, "\(error)")
        }
    }

    @Test func theDefaultsAndTheLargestSettingsAreAccepted() throws {
        try RunConfiguration(scenario: .fanout, seed: 1).validate()
        try RunConfiguration(scenario: .roundtrip, seed: 1).validate()
        let largest = Self.configuration {
            $0.interval = RunConfiguration.Limits.longestDuration
            $0.messages = 356
            $0.timeout = RunConfiguration.Limits.longestDuration
            $0.heartbeat = RunConfiguration.Limits.longestDuration
            $0.deadAfter = 3 * RunConfiguration.Limits.longestDuration
        }
        try largest.validate()
    }

    @Test func aRunIsRefusedBeforeItStartsNotTrapped() {
        let configuration = Self.configuration { $0.heartbeat = .max }
        #expect {
            try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            guard case RunError.invalidConfiguration(let problem) = error else { return false }
            return problem.option == "heartbeat" && "\(error)" == "--heartbeat: must be at most 86400s (a day)"
        }
    }

    @Test func aTimetableNearTheLimitHasNoOverflowEvenWithPoissonGaps() {
        var random = SplitMix64(seed: 3)
        let offsets = SendSchedule.offsets(count: 1_000, meanInterval: .max / 10, arrival: .poisson, rng: &random)
        #expect(offsets.last == .max, "saturates")
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
