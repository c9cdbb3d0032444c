import BenchCore
import BenchNet

/// The writing end of a channel from a share of a fan-out target run's subscribers to the run's measuring thread:
/// what they received (echo frames) and their ``SubscriberReport``s, gathered in one buffer and written with one
/// blocking call per pass of their event loop (never one per message). A measuring thread that falls behind holds
/// the subscribers' thread back; its stamps were taken before.
final class ReportWriter {
    let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0
    /// The channel failed (the measuring thread is gone): nothing more is written.
    private(set) var isBroken = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer = .allocate(byteCount: 64 << 10, alignment: 8)
    }

    deinit {
        buffer.deallocate()
    }

    /// A broadcast `sequence` was read by `client` at `received` (the kernel's stamp `receivedKernel`, or 0).
    @inline(__always)
    func received(sequence: UInt32, client: UInt32, at received: UInt64, kernel receivedKernel: UInt64) {
        makeRoom(WireFormat.minimumMessageSize)
        Frame.encodeMessage(
            into: UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + WireFormat.minimumMessageSize]),
            kind: .echo, sequence: sequence, client: client, sentNanoseconds: 0, receivedNanoseconds: received,
            receivedKernelNanoseconds: receivedKernel)
        used += WireFormat.minimumMessageSize
    }

    func report(_ report: SubscriberReport) {
        makeRoom(WireFormat.subscriberReportMaximumSize)
        used += report.encode(into: UnsafeMutableRawBufferPointer(rebasing: buffer[used...]))
    }

    /// Writes what was gathered.
    func flush() {
        guard used > 0, !isBroken else { return used = 0 }
        do {
            try Posix.sendAll(descriptor, UnsafeRawBufferPointer(rebasing: buffer[0..<used]))
        } catch {
            isBroken = true
        }
        used = 0
    }

    private func makeRoom(_ bytes: Int) {
        if buffer.count - used < bytes { flush() }
    }
}
