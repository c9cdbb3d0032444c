import CBenchLinux
import Glibc

/// The epoll events the harness asks for and gets back.
public struct EpollEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Bytes can be read, or the peer closed.
    public static let readable = EpollEvents(rawValue: CBenchEPOLLIN)
    /// Bytes can be written.
    public static let writable = EpollEvents(rawValue: CBenchEPOLLOUT)
    /// An error is pending on the descriptor (always reported).
    public static let error = EpollEvents(rawValue: CBenchEPOLLERR)
    /// The connection hung up (always reported).
    public static let hangUp = EpollEvents(rawValue: CBenchEPOLLHUP)
    /// In an interest: after one event the descriptor reports nothing more, its error and hang-up included, until its
    /// interest is set again.
    public static let oneShot = EpollEvents(rawValue: CBenchEPOLLONESHOT)
}

/// A level-triggered epoll instance with a preallocated event buffer.
///
/// Each registration carries a 64-bit token chosen by the owner (a connection's slot, a timer's role), which
/// `wait` hands back with the ready events; the owner decodes it. One thread uses an instance.
public final class Epoll {
    private let owned: Descriptor
    private let events: UnsafeMutableBufferPointer<epoll_event>
    /// How many events the last wait returned: ``event(at:)`` reads no further (debug builds check).
    private var readyCount = 0
    /// `epoll_pwait2` is not there (ENOSYS) or refused (EPERM): waits to the nanosecond go to the millisecond.
    private var waitsInMilliseconds = false

    /// The epoll descriptor's number, for as long as this instance lives.
    public var descriptor: Int32 { owned.rawValue }

    /// Creates an epoll instance that returns at most `maximumEvents` events per wait.
    public init(maximumEvents: Int = 512) throws(SystemError) {
        owned = Descriptor(
            owning: try Posix.call("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }, owner: "Epoll")
        events = .allocate(capacity: maximumEvents)
    }

    deinit {
        events.deallocate()
    }

    /// Starts watching `fd` for `interest`; `token` comes back with its events.
    public func add(_ fd: Int32, interest: EpollEvents, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, fd, interest, token)
    }

    /// Changes what `fd` is watched for.
    public func modify(_ fd: Int32, interest: EpollEvents, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, fd, interest, token)
    }

    /// Stops watching `fd` (closing it also does).
    public func remove(_ fd: Int32) throws(SystemError) {
        try control(EPOLL_CTL_DEL, fd, [], 0)
    }

    /// Waits until events are ready or `timeoutMilliseconds` pass (-1: forever, 0: poll). Returns how many
    /// events are ready; read them with ``event(at:)``. An interrupted wait returns 0.
    public func wait(timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let count = epoll_wait(descriptor, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        readyCount = max(Int(count), 0)
        if count >= 0 { return Int(count) }
        if Glibc.errno == EINTR { return 0 }
        throw SystemError("epoll_wait", errno: Glibc.errno)
    }

    /// ``wait(timeoutMilliseconds:)`` to the nanosecond (`epoll_pwait2`; nil: until one comes): a loop that wakes for
    /// a time of its own (an emulated link's next exit) needs no timer descriptor to set and read for it.
    public func wait(timeoutNanoseconds: UInt64?) throws(SystemError) -> Int {
        guard let timeoutNanoseconds else { return try wait(timeoutMilliseconds: -1) }
        guard !waitsInMilliseconds else {
            return try wait(timeoutMilliseconds: Int32(min((timeoutNanoseconds + 999_999) / 1_000_000, UInt64(Int32.max))))
        }
        var timeout = timespec(
            tv_sec: Int(min(timeoutNanoseconds / 1_000_000_000, UInt64(Int32.max))),
            tv_nsec: Int(timeoutNanoseconds % 1_000_000_000))
        let count = epoll_pwait2(descriptor, events.baseAddress, Int32(events.count), &timeout, nil)
        readyCount = max(Int(count), 0)
        if count >= 0 { return Int(count) }
        if Glibc.errno == EINTR { return 0 }
        if Glibc.errno == ENOSYS || Glibc.errno == EPERM {  // a kernel before 5.11, or a sandbox that refuses the call
            waitsInMilliseconds = true  // to the millisecond from now on, rounded up
            return try wait(timeoutNanoseconds: timeoutNanoseconds)
        }
        throw SystemError("epoll_pwait2", errno: Glibc.errno)
    }

    /// The token and events of the `index`th ready descriptor of the last wait, which returned more than `index`.
    @inline(__always)
    public func event(at index: Int) -> (token: UInt64, events: EpollEvents) {
        assert(index < readyCount, "event \(index) read after a wait that returned \(readyCount)")
        let event = events[index]
        return (event.data.u64, EpollEvents(rawValue: event.events))
    }

    private func control(_ operation: Int32, _ fd: Int32, _ interest: EpollEvents, _ token: UInt64) throws(SystemError) {
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = token
        _ = try Posix.call("epoll_ctl") { epoll_ctl(descriptor, operation, fd, &event) }
    }
}
