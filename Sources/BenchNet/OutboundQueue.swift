/// Bytes a connection accepted for sending that the socket has not taken yet, in order.
///
/// One growable byte array with a read position: appending copies the bytes once, draining only moves the
/// position, and the storage is reused (never shrunk) once empty, so a steady state allocates nothing.
struct OutboundQueue {
    private var storage: [UInt8] = []
    private var start = 0

    /// Bytes waiting.
    var count: Int { storage.count - start }

    var isEmpty: Bool { start == storage.count }

    /// Bytes it holds before its storage must grow.
    var capacity: Int { storage.capacity - start }

    /// Grows the storage once, ahead of use, to hold `count` bytes.
    mutating func reserve(_ count: Int) {
        storage.reserveCapacity(count)
    }

    /// Appends bytes behind those already waiting.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= storage.count / 2 {
            storage.removeSubrange(0..<start)
            start = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// Calls `body` with the waiting bytes, oldest first.
    func withWaitingBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Drops the oldest `count` waiting bytes: they went out.
    mutating func removeFirst(_ count: Int) {
        start += count
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        }
    }
}
