import BenchCore
import BenchNet
import Glibc

/// The link's entrances: each client that connects to one gets a connection to the server and a path each way through
/// that entrance's link.
extension LinkLoop {
    /// Accepts every connection waiting at entrance `entrance`, and for each connects to the server through the
    /// entrance's link; with no descriptor left, the entrances rest (``acceptPause``, or until a connection closes).
    func acceptAll(entrance: Int) {
        let profile = entrances[entrance].profile
        while true {
            let accepted: Descriptor?
            do {
                accepted = try TCPSocket.accept(from: entrances[entrance].listener.rawValue)
            } catch {  // no descriptor left (EMFILE): rest a moment, or until a connection closes, rather than spin on it
                acceptPausedUntil = MonotonicClock.now() + Self.acceptPause
                for (index, entrance) in entrances.enumerated() {
                    try? epoll.modify(entrance.listener.rawValue, interest: [], token: Self.firstEntranceToken + UInt64(index))
                }
                return
            }
            guard let accepted else { return }
            guard let server = try? TCPSocket.startConnecting(to: upstream).relinquish() else {
                continue  // `accepted` is closed as it goes: the client sees its connection end, as a refused connect
            }
            // Either side's bytes stamped as the kernel receives them (without: as the thread reads them).
            try? stamps.enable(on: accepted.rawValue, transmit: false)
            try? stamps.enable(on: server, transmit: false)
            let client = accepted.relinquish()  // the link's now, closed by ``close(_:)``
            let place = links.count
            links.append(Linked(
                client: Side(socket: client, interest: .readable),
                server: Side(socket: server, interest: [.readable, .writable]),
                down: LinkPath(profile.down, of: profile, origin: origin, seed: seed, stream: UInt64(2 * place)),
                up: LinkPath(profile.up, of: profile, origin: origin, seed: seed, stream: UInt64(2 * place + 1)),
                lastActivity: MonotonicClock.now(), entrance: UInt8(entrance)))
            do {
                try epoll.add(client, interest: .readable, token: UInt64(place) << 1)
                try epoll.add(server, interest: [.readable, .writable], token: UInt64(place) << 1 | 1)
            } catch {
                close(place)
            }
        }
    }

    /// The entrances listen again.
    func resumeAccepting() {
        acceptPausedUntil = 0
        for (index, entrance) in entrances.enumerated() {
            try? epoll.modify(entrance.listener.rawValue, interest: .readable, token: Self.firstEntranceToken + UInt64(index))
        }
    }
}
