import BenchCore

/// What a run is, as one value: which server is measured, and whose clients measure it. Which clients of the run
/// this process simulates is apart from it (``RunConfiguration/localClientRange``): a placement, not a role.
public enum RunRole: Sendable, Equatable {
    /// The built-in server, with its clients in this process (or, for ids outside ``RunConfiguration/localClients``,
    /// connecting from elsewhere: a test's own sockets).
    case local
    /// The built-in server alone (`bench serve`, and the server's side of `--client-procs`): agents that show the
    /// token whose hash this is (``AgentToken``) bring the clients.
    case serve(agentToken: UInt64)
    /// A user's server and how to speak to it (`--target` and its options), measured by this process's clients (on
    /// its threads or in its child processes) or, with `agentToken`, by the clients of agents that show the token whose
    /// hash this is (`bench serve fanout|roundtrip --target`).
    case target(TargetSettings, agentToken: UInt64?)
}
