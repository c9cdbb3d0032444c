/// The measurements the harness runs.
public enum Scenario: String, Sendable, CaseIterable {
    /// The server broadcasts each message to every client; clients stamp arrival and echo.
    case fanout
    /// The server sends each client its own messages; the client echoes each at once.
    case roundtrip
    /// Clients in rooms each send on their own timetable; the server relays each message to the other members of the
    /// sender's room, who stamp its arrival.
    case chat

    /// True when one send goes to many clients, each a message of the ledger (fanout's broadcast, a chat message):
    /// delivery, spread and completion are measured per send.
    public var isBroadcast: Bool { self != .roundtrip }
}
