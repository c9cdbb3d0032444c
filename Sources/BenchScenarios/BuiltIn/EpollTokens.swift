/// epoll tokens of ``BenchServer``: fixed ones for the listener, timers and wake-up, then one per accepted connection.
enum BenchServerToken {
    static let listener: UInt64 = 0
    static let sendTimer: UInt64 = 1
    static let housekeepingTimer: UInt64 = 2
    static let wake: UInt64 = 3
    static let firstConnection: UInt64 = 4
}

/// epoll tokens of ``EchoClients``: the wake-up, the heartbeat and reconnect timers, then one per connection.
enum EchoClientsToken {
    static let wake: UInt64 = 0
    static let heartbeatTimer: UInt64 = 1
    static let reconnectTimer: UInt64 = 2
    static let firstConnection: UInt64 = 3
}
