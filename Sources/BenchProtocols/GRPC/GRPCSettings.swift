import BenchCore

extension ServerProtocol {
    /// A `grpc://` target: the method called (`/package.Service/Method`), the `:authority` (host:port), the subscriber's
    /// request (`--subscribe`, as `protoc --decode_raw` prints it: a chat room's `{room}` and a `--clients-file` row's
    /// values are put in before it is encoded, once per connection), the unary method the publisher and chat members
    /// call (`--publish-method`), the user's metadata (`--header`), whether the method is a round trip's bidirectional
    /// stream, and whether the connection is TLS.
    public struct GRPCSettings: Sendable {
        public var method: String
        public var authority: String
        public var subscribe: String
        public var publishMethod: String?
        public var metadata: [HeaderField]
        public var bidirectional: Bool
        public var usesTLS: Bool
        /// A fan-out subscriber's connection carries this many subscribers, each its own call of the method
        /// (`--streams-per-connection`); 1 elsewhere.
        public var calls = 1

        public init(
            method: String, authority: String, subscribe: String, publishMethod: String?, metadata: [HeaderField],
            bidirectional: Bool = false, usesTLS: Bool = false
        ) {
            (self.method, self.authority, self.subscribe, self.publishMethod) = (method, authority, subscribe, publishMethod)
            (self.metadata, self.bidirectional, self.usesTLS) = (metadata, bidirectional, usesTLS)
        }

        /// The method a connection of `role` calls.
        func method(for role: SessionRole) -> String {
            role == .publisher ? publishMethod ?? method : method
        }
    }
}
