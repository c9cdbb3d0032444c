import BenchCore

/// The one place a stamp taken elsewhere is put on the collector's clock: a child's or a thread's on this machine
/// (the same monotonic clock since the same boot: taken as it is) or an agent's (its ``ClockModel``, measured in
/// rounds during the run). Every remote stamp of every scenario goes through one of its three rules:
///
/// - ``time(of:)``: a stamp with no bounds to keep it in (the time of a client group's report: a close, the server's
///   error, a note);
/// - ``time(of:between:and:)`` and ``read(_:kernel:between:and:)``: a stamp known to fall between two times of this
///   clock (a write after its order and before its report; a read after the message's write and before now). One the
///   model puts outside them by no more than its error bound is taken as the bound; a kernel read stamp is kept
///   between the write and the user-space read;
/// - ``shifted(_:remoteWrite:localWrite:)``: a stamp of an interval the remote end measured from its own write (a
///   transmit stamp; a read of a round trip it timed), shifted as its write was, so that the interval stays exactly as
///   it was measured.
struct RemoteClock {
    /// The agent's clock; nil: this machine's.
    let model: ClockModel?

    @inline(__always)
    func time(of stamp: UInt64) -> UInt64 {
        model?.serverTime(ofAgentStamp: stamp) ?? stamp
    }

    @inline(__always)
    func time(of stamp: UInt64, between low: UInt64, and high: UInt64) -> UInt64 {
        model?.serverTime(ofAgentStamp: stamp, between: low, and: high) ?? stamp
    }

    /// A read at `stamp` and the kernel's stamp of it (`kernel`, 0: none) of a message written at `low`, reported by
    /// `high`.
    @inline(__always)
    func read(_ stamp: UInt64, kernel: UInt64, between low: UInt64, and high: UInt64) -> (user: UInt64, kernel: UInt64) {
        let user = time(of: stamp, between: low, and: high)
        return (user, kernel == 0 ? 0 : time(of: kernel, between: low, and: user))
    }

    /// `stamp`, of an interval measured from the remote end's write at `remoteWrite` (its own clock; 0: never
    /// reported), where that write is `localWrite` on this clock; nil when it cannot be placed (an agent's write never
    /// reported). A 0 stamp (none taken) stays 0.
    @inline(__always)
    func shifted(_ stamp: UInt64, remoteWrite: UInt64, localWrite: UInt64) -> UInt64? {
        guard model != nil, stamp != 0 else { return stamp }
        guard remoteWrite != 0 else { return nil }
        return localWrite &+ (stamp &- remoteWrite)
    }
}
