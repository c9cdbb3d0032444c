import BenchCore
import BenchNet
import Glibc

/// The link between this process's clients and the server, emulated in user space (`--link`): the clients connect to
/// its listener, and for each it connects to the server; every byte either way comes out of the connection's
/// ``LinkPath`` of that direction when the path says. It needs no privileges, and a client's kernel stamps are taken on
/// its own socket, after the link, as behind a real one. One thread, started before the clients and ended after them.
///
/// What the model leaves out: the TCP handshake itself (the kernel completes it at once; every byte after it is
/// delayed), and segments: each read is cut into segments of at most 1448 bytes, as loopback's MSS would not.
final class LinkEmulator: @unchecked Sendable {
    /// Where the clients connect.
    let address: SocketAddress
    private let stopSignal: EventNotifier
    private var thread: NativeThread<Void>?

    /// Listens on loopback, and starts the thread that relays to `upstream` through `profile`; each connection's paths
    /// draw their jitter and losses from `seed`.
    init(profile: LinkProfile, upstream: SocketAddress, seed: UInt64) throws(SystemError) {
        let (listener, bound) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        address = bound
        let loop: LinkLoop
        do {
            stopSignal = try EventNotifier()
            loop = try LinkLoop(profile: profile, upstream: upstream, seed: seed, listener: listener, stop: stopSignal)
        } catch {
            Posix.close(listener)
            throw error
        }
        do {
            thread = try NativeThread.spawn(name: "bench-link") { loop.run() }
        } catch {
            loop.shutDown()
            throw error
        }
    }

    /// Stops the thread; every connection through the link is closed.
    func end() {
        stopSignal.notify()
        _ = thread?.join()
        thread = nil
    }
}
