import BenchCore

/// One client connection's emulated link (`--link`), kept inside the client's own loop: a path and a queue each way.
/// What the server sends is read from the socket when the kernel received it and handed to the client when the
/// downlink lets it out; what the client sends enters the uplink at once and goes to the socket when it lets it out.
/// No thread, no socket and no copy of the connection of its own: the loop's timer wakes for the next exit
/// (``LinkScheduler``). A class: a connection without a link carries a reference, not its room.
public final class ConnectionLink {
    /// Bytes a direction holds before it stops taking more from its sender (TCP's window, closed).
    static let mostHeld = 4 << 20

    var down: LinkPath
    var up: LinkPath
    var towardClient = LinkQueue()
    var towardServer = LinkQueue()
    /// The NAT's idle timeout, and its group's place in the mix (whose NAT forgot it).
    let natIdle: UInt64?
    let group: Int
    /// The last byte either way entered or left the link then (the NAT's idle clock).
    var lastActivity: UInt64
    /// The NAT forgot the connection: its bytes, and the server's end, vanish both ways.
    var forgotten = false
    /// The server's end was read: it reaches the client once the bytes before it are out.
    var serverEnded = false
    /// The server's end was a reset (or the socket failed): thrown to the client once the bytes before it are out.
    var serverError: SystemError?
    /// Its epoll does not watch the socket's reads: the server's end came, or the downlink holds ``mostHeld``.
    var readingPaused = false
    /// With io_uring: its multishot receive ended (the kernel's, or cancelled by a pause), to be armed again to read on.
    var receiveEnded = false
    /// When reading began again after a pause: what waited in the socket meanwhile enters the link then.
    var readableSince: UInt64 = 0
    /// The loop woke for bytes due toward the client: the next read hands them out without reading the socket.
    var handOutDue = false
    /// The exit each direction's wake-up is set for (0: none).
    var armedDown: UInt64 = 0
    var armedUp: UInt64 = 0
    /// Its place in its loop's ``LinkScheduler``.
    var slot = -1

    /// A connection through `profile`'s link, group `group` of its mix, its blackouts counted from `origin`, its
    /// jitter and losses drawn from `seed`'s streams `stream` (down) and `stream + 1` (up), begun at `now`.
    public init(profile: LinkProfile, group: Int, origin: UInt64, seed: UInt64, stream: UInt64, now: UInt64) {
        down = LinkPath(profile.down, of: profile, origin: origin, seed: seed, stream: stream)
        up = LinkPath(profile.up, of: profile, origin: origin, seed: seed, stream: stream &+ 1)
        natIdle = profile.natIdle
        self.group = group
        lastActivity = now
    }

    /// What the uplink holds past ``mostHeld``: what a full socket buffer would leave waiting in the connection's queue.
    var backlog: Int { max(0, towardServer.count - Self.mostHeld) }

    /// Whether the NAT forgets the connection at `now`, idle past its timeout: if so, what the link held vanishes, and
    /// the time it was forgotten (its last byte and the timeout) is returned.
    func forgets(at now: UInt64) -> UInt64? {
        guard let natIdle, !forgotten, now > lastActivity, now - lastActivity > natIdle else { return nil }
        forgotten = true
        towardClient.removeAll()
        towardServer.removeAll()
        return lastActivity + natIdle
    }

    /// Bytes from the server, received at `time`, into the downlink.
    func enterDown(_ bytes: UnsafeRawBufferPointer, at time: UInt64) {
        towardClient.append(bytes, entering: time, through: &down)
    }

    /// Bytes from the client, `head` then `body`, sent at `time`, into the uplink.
    func enterUp(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, at time: UInt64) {
        towardServer.append(head, body, entering: time, through: &up)
    }

    /// When the loop must wake for the client's side: the next exit toward it, or at once for the server's end once
    /// nothing is before it (none for a forgotten connection, whose end vanished).
    func nextDown(at now: UInt64) -> UInt64? {
        towardClient.nextExit ?? (serverEnded && !forgotten ? now : nil)
    }
}
