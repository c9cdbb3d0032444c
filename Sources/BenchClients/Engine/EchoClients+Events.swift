import BenchCore
import BenchNet

/// The clients' thread waiting for its events, and each event: epoll's, or with io_uring the ring's completions.
extension EchoClients {
    /// Sets up io_uring on this thread: the clients' reads arrive through its ring and each pass's echoes go out in
    /// one submission. Where it cannot, the thread stays on epoll and says so in the run's events.
    func startUring() {
        guard let refusal = loop.startUring(connections: ids.count) else { return }
        record(client: nil, reason: "io_uring could not be set up on a clients' thread (\(refusal)); its sockets use epoll", as: .note)
    }

    /// Waits for events and handles them (``ClientLoop/wait(timeoutMilliseconds:_:)``). False when the loop ends (a
    /// wake-up, a failure).
    func waitAndHandleEvents() -> Bool {
        do {
            return try loop.wait(timeoutMilliseconds: -1) { handle(token: $0, events: $1) }
        } catch {
            record(client: nil, reason: "\(error)")
            return false
        }
    }

    /// Handles one event of the thread's loop. False when the loop ends: the run's control woke it, or a hello or a
    /// connect could not go out.
    func handle(token: UInt64, events: EpollEvents) -> Bool {
        switch token {
        case Token.wake:
            return false
        case Token.heartbeatTimer:
            heartbeatTimer.drain()
            if heartbeat > 0 { sendHeartbeatSlice() }
            postLoad()
        case Token.connectTimer:
            connectTimer.drain()
            guard startDueConnects() else { return false }
        default:
            let position = Int(token - Token.firstConnection)
            guard let connection = table[position], connection.isOpen else { return true }
            if !handle(events, position: position) { close(position) }
            // isEstablished is false for a connection closed meanwhile: no hello on a closed socket.
            guard table.isSettingUp(position) && connection.isEstablished else { return true }
            guard sayHello(position: position), startDueConnects() else { return false }
        }
        return true
    }
}
