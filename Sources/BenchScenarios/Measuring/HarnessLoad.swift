import BenchCore

/// Whether the harness itself was the bottleneck of a run, from what it measured of itself: its measuring thread's
/// CPU time (the built-in server's, or a target run's clients') over the time it sent, and how far its timetable
/// slipped (lag). A saturated run's numbers are partly the harness's, not the server's: the run says so.
public struct HarnessLoad: Sendable, Equatable {
    /// A measuring thread busy this share of the run (percent) or more had no time to spare.
    public static let busyLimit = 90.0

    /// The busiest harness thread's busy share, 0–100: the measuring thread's over the time it sent, or a client
    /// thread's (over its life in this process; since its clients were all connected in a child, an agent or a target
    /// run's subscriber thread), whichever is larger; nil when nothing was sent.
    public let busiestPercent: Double?
    /// Each role's: the measuring thread's (the built-in server's, or a target run's publisher and ring) over the time
    /// it sent, and the busiest client or subscriber thread's, as above (this process's, a child's or, for a
    /// target run, an agent's); nil when not known.
    public let measuringPercent: Double?
    public let clientsPercent: Double?
    /// Why the numbers may be the harness's; nil when they are not.
    public let saturation: String?
    /// Why the timetable slipped when the user's server (`--target`), not the harness, held it back: the harness's
    /// threads had time to spare, the measuring thread was not kept waiting for a CPU, and its sends waited for earlier
    /// messages still in flight (their echoes or deliveries not yet in), never for its own writer. A server that cannot
    /// keep up with the offered load; nil otherwise.
    public let serverBackpressure: String?
    /// Why the timetable slipped when other work on the machine, not the harness nor the server, held it back: the
    /// harness's threads had time to spare (its busiest under ``idleLimit``) and other processes (or a hypervisor) took
    /// a CPU's share that disturbs a run (``MachineShare/isDisturbed``). No measurement of the server: its verdicts
    /// are inconclusive; nil otherwise.
    public let disturbance: String?

    /// The load of `recording`'s harness, with its lag's p99 (nanoseconds) if it has one.
    public init(recording: RunRecording, lagP99: UInt64?, timedOut: Int = 0) {
        let configuration = recording.configuration
        let duration = recording.sendingDuration
        let measuring = duration == 0
            ? nil : Swift.min(100, 100 * Double(recording.measuringThreadCPU) / Double(duration))
        let clients = duration == 0 ? nil : recording.busiestClientThreadPercent
        busiestPercent = [measuring, clients].compactMap { $0 }.max()
        (measuringPercent, clientsPercent) = (measuring, clients)
        var reasons: [String] = []
        // A busy-polling thread spins by design, and a closed loop sends as fast as it can: their CPU share says
        // nothing.
        if !configuration.busyPoll && !configuration.isClosedLoop {
            if let measuring, measuring >= Self.busyLimit {
                let percent = DecimalText.fixed(measuring, fractionDigits: 0)
                reasons.append("its measuring thread was busy \(percent)% of the run")
            }
            if let clients, clients >= Self.busyLimit {
                reasons.append("a client thread was busy \(DecimalText.fixed(clients, fractionDigits: 0))% of its run")
            }
        }
        // Emulated links whose threads let their bytes out behind the model's times at their median, for a tenth of
        // what the run's links carried or more, added their own delay to those messages (measured, not inferred: each
        // write's lateness; ``LinkLateness/isSaturated``).
        let linkWasLate = recording.linkLateness?.isSaturated == true
        if linkWasLate, let lateness = recording.linkLateness {
            reasons.append(
                "its emulated link let bytes out after the model's time: p50 \(DurationText.display(lateness.p50)) late, "
                    + "p99 \(DurationText.display(lateness.p99)), the client threads' own delay in what they sent and answered")
        }
        // The built-in server is the harness: on loopback, with no emulated link, a message it lost to its timeout was
        // lost to a machine that did not keep up (the kernel's work for the connections shows in no harness thread's CPU).
        // (Not where clients go away by design: a message held for an absent client may time out.)
        if timedOut > 0 && configuration.target == nil && configuration.link == nil && configuration.isOnLoopback
            && !configuration.expectsReconnects
        {
            reasons.append("\(timedOut) messages to its own server on loopback timed out or came late: the machine did not keep up")
        }
        var backpressure: String?
        var disturbance: String?
        if configuration.interval > 0, let lagP99, lagP99 > configuration.interval {
            let slipped = "its timetable slipped: lag p99 \(DurationText.display(lagP99)) is more than the interval "
                + DurationText.format(configuration.interval)
            let idle = busiestPercent.map { " (its busiest thread \(DecimalText.fixed($0, fractionDigits: 0))% busy)" }
            // The server's doing only where there is a server of the user's (the built-in one is the harness): its own
            // processes, found on this machine, busy most of a CPU; or the measuring thread not starved of CPU (it
            // waited on a run queue under a tenth of the time) while its sends waited for earlier messages in flight.
            let starved = recording.measuringThreadRunQueueWait.map { $0 * 10 >= duration } ?? true
            let machine = recording.machine
            if reasons.isEmpty && configuration.target != nil, let server = machine?.serverCPU,
                server >= Self.busyServerCPU
            {
                backpressure = "the server did not keep up: \(slipped) while its processes on this machine used "
                    + "\(Int((server * 100).rounded()))% of a CPU and the harness had time to spare\(idle ?? "")"
            } else if reasons.isEmpty && configuration.target != nil && !starved && recording.windowWaits > 0
                && recording.writerWaits == 0
            {
                backpressure = "the server did not keep up: \(slipped) while the harness had time to spare\(idle ?? ""); "
                    + "\(recording.windowWaits) sends waited for earlier messages still in flight"
            } else if reasons.isEmpty, let machine, machine.isDisturbed, (busiestPercent ?? 0) < Self.idleLimit,
                !Self.wantedAWholeCPU(recording, over: duration)
            {
                let waited = recording.longestThreadWait.map { thread in
                    "; its \(thread.name) thread waited \(DurationText.display(thread.waiting)) for a CPU"
                } ?? ""
                disturbance = "the machine was busy with other work: \(slipped) while \(machine.othersText) and the "
                    + "harness had time to spare\(idle ?? "")\(waited)"
            } else {
                reasons.append(slipped)
            }
        }
        serverBackpressure = backpressure
        self.disturbance = disturbance
        let spread = configuration.localClients.count < configuration.clients
        let remedy: String
        if linkWasLate && reasons.count == 1 {  // a burst's copies in each client thread: no timetable spreads them
            remedy = "each client thread lets its clients' link bytes out one after another, a broadcast's copies "
                + "together, whatever the timetable: fewer clients behind each thread (--client-threads or --client-procs "
                + "where CPUs are spare, agents on other hosts)"
        } else if spread {
            remedy = "its clients already ran in processes of their own: a slower timetable, or fewer clients per box "
                + "(agents on other hosts)"
        } else {
            remedy = "spread the clients (--client-procs, agents on other hosts), fewer clients per box, or a slower "
                + "timetable"
        }
        advice = "these numbers are partly the harness's, not the server's: " + remedy
        saturation = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// True when the measuring thread ran or waited to run for nine tenths of the time it sent or more: on a quiet
    /// machine it would have kept a CPU busy (a timetable no machine keeps), so a slip is its own, however much of that
    /// time other work took from it.
    static func wantedAWholeCPU(_ recording: RunRecording, over duration: UInt64) -> Bool {
        guard duration > 0 else { return false }
        let wanted = recording.measuringThreadCPU &+ (recording.measuringThreadRunQueueWait ?? 0)
        return Double(wanted) >= 0.9 * Double(duration)
    }

    /// A harness whose busiest thread was busy less than this share of the run (percent) had time to spare: a timetable
    /// that slipped while other work took the machine was held back by that work. Busier, the harness may have been the
    /// limit itself, and the run says saturated.
    public static let idleLimit = 50.0

    /// A server whose processes on this machine used this much of a CPU (0.8: 80%) while the timetable slipped was
    /// at its limit.
    public static let busyServerCPU = 0.8

    /// What a person should do about a disturbed run.
    public static let disturbanceAdvice =
        "these numbers are partly other work's, not the server's: run again on a quiet machine, or --accept disturbed "
        + "to judge them anyway"

    /// What a person should do about a saturated harness: spread its clients, or, where they already ran in
    /// processes of their own (chosen by the run itself, or agents), give them more machine or a slower timetable.
    public let advice: String
}

extension RunAnalysis {
    /// The load of the run's harness, from its recording and its lag's p99: one figure for the terminal, run.csv and
    /// the warning.
    public var harnessLoad: HarnessLoad {
        HarnessLoad(recording: recording, lagP99: summary(of: .lag)?.p99, timedOut: timedOutMessages)
    }
}
