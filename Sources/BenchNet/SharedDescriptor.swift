import Synchronization

/// A ``Descriptor`` that several parts of the program refer to, closed exactly once: by whichever part is done with it
/// first (``close()``; later calls do nothing), or when the last reference goes. What a noncopyable `Descriptor` cannot
/// be: an element of an array (a run's channels to its child processes), a field of a `Sendable` configuration handed
/// from the thread that made it to the one that uses it (a listener), or an end one thread closes to wake another.
///
/// Its ``rawValue`` is for system calls made while it is open; after ``close()`` the number belongs to whoever the
/// kernel gives it next, so nothing may use a copy of it any more.
public final class SharedDescriptor: Sendable {
    /// The descriptor's number, for the length of a system call while it is open.
    public let rawValue: Int32
    private let owned: Mutex<Descriptor?>

    /// Takes ownership of `rawValue`, a descriptor just opened; `owner` names the kind of holder in the debug ledger's
    /// messages (``DescriptorLedger``).
    public init(owning rawValue: Int32, owner: StaticString) {
        self.rawValue = rawValue
        owned = Mutex(Descriptor(owning: rawValue, owner: owner))
    }

    /// Takes over `descriptor`.
    public init(_ descriptor: consuming Descriptor) {
        rawValue = descriptor.rawValue
        owned = Mutex(descriptor)
    }

    /// True until it is closed or given up.
    public var isOpen: Bool { owned.withLock { $0 != nil } }

    /// Closes the descriptor the first time; later calls do nothing.
    public func close() {
        owned.withLock { $0.take() }?.close()
    }

    /// Gives up ownership without closing (a child process's inherited end, once the child has it): nil when it was
    /// closed or given up already.
    public func relinquish() -> Int32? {
        owned.withLock { $0.take() }?.relinquish()
    }
}
