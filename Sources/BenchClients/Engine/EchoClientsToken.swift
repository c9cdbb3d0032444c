/// epoll tokens of ``EchoClients``: the wake-up, then one per connection.
enum EchoClientsToken {
    static let wake: UInt64 = 0
    static let firstConnection: UInt64 = 1
}
