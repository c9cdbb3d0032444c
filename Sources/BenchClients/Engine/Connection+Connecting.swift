import BenchCore
import BenchNet

extension Connection {
    /// The one way a client's connection starts, in a client loop (``ClientLoop/connect(to:from:token:transmitStamps:onRing:settings:)``)
    /// or not (a target's publisher on the measuring thread): a non-blocking connect to `address` (from `source`) in
    /// `epoll` as token `token`, the kernel's stamps on before any byte (transmit ones too with `transmitStamps`: their
    /// offsets count from the first byte), busy polling with `busyPoll`, and io_uring's `receiver` and `batch` where
    /// given. Its connect time counts from before the socket is made.
    public static func connecting(
        to address: SocketAddress, from source: SocketAddress? = nil, token: UInt64, epoll: Epoll,
        settings: TransportSettings, maximumQueuedBytes: Int, stamps: KernelTimestamps?, transmitStamps: Bool,
        busyPoll: Bool = false, receiver: UringReceiver? = nil, batch: SendBatch<T>? = nil
    ) throws -> Connection<T> {
        let started = MonotonicClock.now()
        let socket = try TCPSocket.startConnecting(to: address, from: source)
        try? stamps?.enable(on: socket.rawValue, transmit: transmitStamps)  // without: user-space times, counted
        if busyPoll { TCPSocket.pollBusily(socket.rawValue) }
        return try Connection<T>(
            descriptor: socket, token: token, epoll: epoll, role: .client, settings: settings,
            maximumQueuedBytes: maximumQueuedBytes, connecting: true, startedAt: started, receiver: receiver, batch: batch)
    }
}
