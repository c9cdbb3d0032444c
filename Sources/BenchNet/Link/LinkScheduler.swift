import BenchCore

/// The wake-ups of one client loop's linked connections (``ConnectionLink``): the next exit of any of them, which the
/// loop's wait ends at (``Epoll/wait(timeoutNanoseconds:)``), and, once it is due, each connection's bytes let out:
/// toward the server written to its socket here, toward the client handed to the loop's owner as a readable event of
/// the connection's token (its read then hands them out, stamped with their exit). One thread uses it, the loop's.
///
/// Its connections are held unretained: each leaves it when it closes or goes (``Connection/close(code:)``).
public final class LinkScheduler<T: Transport> {
    /// What the loop's links did, for the run's report.
    public let tally: LinkTally
    /// The kernel's receive stamps of the linked sockets, where the run takes none of its own: bytes enter the link
    /// when the kernel received them, whatever the clients' stamps.
    let stamps: KernelTimestamps
    /// Exit times to wake for, with the slot and direction (slot × 2, + 1 toward the server).
    private var due = MinimumHeap()
    private var slots: [Unmanaged<Connection<T>>?] = []
    private var freeSlots: [Int] = []
    private var kept: [SharedDescriptor] = []

    /// A scheduler whose links count in `tally`.
    public init(tally: LinkTally) {
        self.tally = tally
        stamps = KernelTimestamps(clock: KernelClockMapping.measure())
    }

    /// Stamps what `descriptor` (a linked client's socket, in a run that takes no kernel stamps) receives, for the link.
    public func stampReceives(on descriptor: Int32) {
        try? stamps.enable(on: descriptor, transmit: false)  // without: bytes enter the link when read
    }

    /// How long the loop may wait (ns) before the next exit (0: one is due), at most `timeout` (nil: no limit).
    public func waitLimit(_ timeout: UInt64?) -> UInt64? {
        guard let next = due.minimum else { return timeout }
        let now = MonotonicClock.now()
        return min(timeout ?? .max, next > now ? next - now : 0)
    }

    /// After the loop's events: lets out what is due by now, toward the server at once, toward the client through
    /// `handle` (a readable event of the connection's token). False when `handle` ended the loop.
    public func letOutDue(_ handle: (_ token: UInt64, _ events: EpollEvents) -> Bool) -> Bool {
        while let next = due.minimum, next <= MonotonicClock.now() {
            let (time, key) = due.removeMinimum()
            let (slot, towardServer) = (Int(key >> 1), key & 1 == 1)
            guard slot < slots.count, let connection = slots[slot]?.takeUnretainedValue() else { continue }  // gone
            if towardServer {
                guard connection.link?.armedUp == time else { continue }  // stale: a later exit is set
                connection.link!.armedUp = 0
                connection.letOutTowardServer(timed: true)
            } else {
                guard connection.link?.armedDown == time else { continue }
                connection.link!.armedDown = 0
                connection.link!.handOutDue = true
                let proceed = handle(connection.token, .readable)
                connection.link?.handOutDue = false  // read or not, the next read is the socket's
                guard proceed else { return false }
            }
        }
        return true
    }

    /// A connection joins: its slot.
    func register(_ connection: Connection<T>) -> Int {
        let reference = Unmanaged.passUnretained(connection)
        if let slot = freeSlots.popLast() {
            slots[slot] = reference
            return slot
        }
        slots.append(reference)
        return slots.count - 1
    }

    /// The socket of a connection its link's NAT forgot, closed by its client: kept open until the loop ends (closed
    /// with the scheduler), since its end vanished with the rest; beyond ``mostKept``, the oldest is closed (its end
    /// then reaches the server), so that a long run of forgotten connections and returns cannot use up the descriptors.
    func keep(_ socket: consuming Descriptor) {
        if kept.count >= Self.mostKept { kept.removeFirst().close() }
        kept.append(SharedDescriptor(owning: socket.relinquish(), owner: "a connection its link's NAT forgot"))
    }

    /// The most sockets of forgotten connections a loop keeps open.
    static var mostKept: Int { 256 }

    /// A connection leaves (closed or gone): its wake-ups find nothing.
    func unregister(_ slot: Int) {
        guard slot >= 0, slot < slots.count, slots[slot] != nil else { return }
        slots[slot] = nil
        freeSlots.append(slot)
    }

    /// A wake-up at `time` for slot `slot`'s direction toward the server or the client.
    func wake(at time: UInt64, slot: Int, towardServer: Bool) {
        due.insert(time, token: UInt64(slot) << 1 | (towardServer ? 1 : 0))
    }
}
