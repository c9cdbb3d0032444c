/// The two measurements the harness runs.
public enum Scenario: String, Sendable, CaseIterable {
    /// The server broadcasts each message to every client; clients stamp arrival and echo.
    case fanout
    /// The server sends each client its own messages; the client echoes each at once.
    case roundtrip
}
