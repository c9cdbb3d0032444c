@testable import BenchClients
import Testing

@testable import BenchScenarios

extension RunConfiguration {
    /// A target run's settings, changed in place: the role holds them.
    mutating func changeTarget(_ change: (inout TargetSettings) throws -> Void) rethrows {
        guard case .target(var settings, let token) = role else {
            Issue.record("not a target run: \(role)")
            return
        }
        try change(&settings)
        role = .target(settings, agentToken: token)
    }
}
