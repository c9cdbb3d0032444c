import BenchClients
import BenchNet
import BenchScenarios
import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into an orderly stop: the first asks the current run to stop (it then writes what
/// was measured, marked interrupted); a second one exits at once.
///
/// The signals are blocked in the calling thread before any other thread starts, so every thread inherits
/// the mask, and one thread of its own takes them with sigwait: no code runs in a signal handler.
final class SignalWatcher: Sendable {
    /// The process's watcher, started on first use (by the first run); nil if its thread could not start, in
    /// which case the signals keep their default action.
    static let shared: SignalWatcher? = {
        do {
            return try SignalWatcher()
        } catch {
            Console.error("warning: Ctrl-C will not stop runs cleanly: \(error)\n")
            return nil
        }
    }()

    private let current = Mutex<(control: RunControl, folder: String?)?>(nil)
    private let received = Atomic<Int32>(0)

    /// Blocks SIGINT and SIGTERM and starts the thread that waits for them. Runs on the main thread, before the
    /// run's threads start, so they inherit the blocked mask.
    private init() throws(SystemError) {
        let blocked = Posix.blockSignals([SIGINT, SIGTERM])
        _ = try NativeThread.spawn(name: "bench-signals") { [self] in
            while true {
                let signal = Posix.waitForSignal(in: blocked)
                if received.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing).exchanged {
                    Console.error("\nstopping: waiting for messages in flight, then writing what was measured "
                        + "(again to quit at once)\n")
                    current.withLock { $0?.control.requestStop() }
                } else {
                    // The run's folder stays as far as it was written, under its working name: say where, and how
                    // to have its reports.
                    if let folder = current.withLock({ $0?.folder }) {
                        Console.error("\nquit: \(folder) holds what was written so far; 'bench report \(folder)' "
                            + "rebuilds its reports\n")
                    }
                    Posix.exitImmediately(128 + signal)
                }
            }
        }
    }

    /// The run a signal should stop from now on (nil between runs), and the folder it writes into, if any.
    func watch(_ control: RunControl?, folder: String? = nil) {
        current.withLock { $0 = control.map { ($0, folder) } }
        if received.load(ordering: .acquiring) != 0 { control?.requestStop() }
    }

    /// The first signal received, or nil.
    var signal: Int32? {
        let signal = received.load(ordering: .acquiring)
        return signal == 0 ? nil : signal
    }
}
