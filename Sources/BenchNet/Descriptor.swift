import Glibc
import Synchronization

/// An open file descriptor with exactly one owner, which closes it exactly once.
///
/// A descriptor's number is reused by the kernel the moment it is closed, so a second close, or a close by anyone
/// but its owner, closes whatever another thread opened since: its epoll, its socket, its file. A `Descriptor`
/// cannot be copied: it is moved to its owner, closed by ``close()`` (which consumes it) or when the owner drops it,
/// and never again. Its ``rawValue`` is for system calls made while the owner holds it; an object that holds one
/// keeps it, and so its number, for as long as anything may use that number (an epoll registration, a queued
/// io_uring submission).
///
/// Debug builds (and so `swift test`) keep a ledger of the numbers owned this way (``DescriptorLedger``): a raw
/// ``Posix/close(_:)`` of a number a `Descriptor` owns traps, and so does a new `Descriptor` for a number the ledger
/// still holds (its owner's descriptor was closed behind its back).
public struct Descriptor: ~Copyable, Sendable {
    /// The descriptor's number, for the length of a system call.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`, a descriptor just opened; `owner` names the kind of holder in the ledger's
    /// messages.
    public init(owning rawValue: Int32, owner: StaticString) {
        precondition(rawValue >= 0, "a descriptor is never negative")
        self.rawValue = rawValue
        DescriptorLedger.opened(rawValue, by: owner)
    }

    /// Closes the descriptor. `EINTR` is not retried: on Linux the descriptor is released either way.
    public consuming func close() {
        Self.close(rawValue)
        discard self
    }

    /// Gives up ownership without closing: the number now belongs to whoever the caller hands it to (a child
    /// process's inherited end, a raw-number API that closes it itself).
    public consuming func relinquish() -> Int32 {
        let number = rawValue
        DescriptorLedger.released(number)
        discard self
        return number
    }

    deinit {
        Self.close(rawValue)
    }

    private static func close(_ number: Int32) {
        DescriptorLedger.released(number)
        let result = Glibc.close(number)
        precondition(result == 0 || Glibc.errno != EBADF, "close(\(number)): its owner's descriptor was not open")
    }
}

/// Debug builds' ledger of the descriptor numbers that a ``Descriptor`` owns, and of who owns each: how a close by
/// the wrong owner is caught where it happens rather than as another thread's impossible event. Release builds keep
/// no ledger (every call is empty).
public enum DescriptorLedger {
    #if DEBUG
    private static let owners = Mutex<[Int32: StaticString]>([:])
    #endif

    /// Records that `number` is now owned by a `Descriptor` of kind `owner`; traps when the ledger holds it already.
    static func opened(_ number: Int32, by owner: StaticString) {
        #if DEBUG
        let previous = owners.withLock { owners in
            defer { owners[number] = owner }
            return owners[number]
        }
        if let previous {
            preconditionFailure(
                "descriptor \(number) opened for \(owner) while \(previous) still owns it: "
                    + "\(previous)'s descriptor was closed behind its back")
        }
        #endif
    }

    /// Records that the owner of `number` closed it or gave it away.
    static func released(_ number: Int32) {
        #if DEBUG
        let owner = owners.withLock { $0.removeValue(forKey: number) }
        precondition(owner != nil, "descriptor \(number) released, but the ledger has no owner for it")
        #endif
    }

    /// Traps when `number` belongs to a ``Descriptor``: a raw close of it would close its owner's descriptor.
    static func checkUnowned(_ number: Int32, closer: StaticString) {
        #if DEBUG
        if let owner = owner(of: number) {
            preconditionFailure("\(closer)(\(number)) of a descriptor \(owner) owns: only its owner may close it")
        }
        #endif
    }

    /// The kind of owner of `number` in debug builds; nil when no ``Descriptor`` owns it (and always in release).
    public static func owner(of number: Int32) -> StaticString? {
        #if DEBUG
        return owners.withLock { $0[number] }
        #else
        return nil
        #endif
    }
}
