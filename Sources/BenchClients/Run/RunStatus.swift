/// How a run ended, as `run.csv`'s `status` says.
public enum RunStatus: String, Sendable {
    /// Every message had its turn.
    case complete
    /// Stopped early on request (Ctrl-C); what was measured until then is kept.
    case interrupted
    /// Stopped early because it could not go on (every client disconnected).
    case failed
}
