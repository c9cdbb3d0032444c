/// epoll tokens of ``EchoClients``: the wake-up, the heartbeat and connect timers, then one per connection.
enum EchoClientsToken {
    static let wake: UInt64 = 0
    static let heartbeatTimer: UInt64 = 1
    static let connectTimer: UInt64 = 2
    static let firstConnection: UInt64 = 3
}
