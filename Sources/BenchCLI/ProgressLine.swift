import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Synchronization

/// What a run shows while it goes on, on standard error: a progress line redrawn a few times a second, only on a
/// terminal (CI logs get none), and a line per report interval (`--report-every`), on a terminal and in logs alike.
enum ProgressLine {
    /// Shows `configuration`'s progress (with `show`) and the lines of `writer`'s intervals (with `showIntervals`)
    /// until its run thread rings `ended`. A run that waits for agents (`bench serve`, `--client-procs`) hands the port it
    /// listens on to `onListening`, once it does, whatever the other settings.
    static func watch(
        _ configuration: RunConfiguration,
        control: RunControl,
        writer: RunStream.Running?,
        show: Bool,
        showIntervals: Bool,
        until ended: EventNotifier,
        onListening: (Int) -> Void = { _ in },
        onTick: () -> Void = {}
    ) {
        let waitsForAgents = configuration.agentToken != nil
        let started = MonotonicClock.now()
        var announced = false
        func announce() {
            let port = control.serverPort.load(ordering: .acquiring)
            guard waitsForAgents, !announced, port > 0 else { return }
            announced = true
            if show { Console.error("\r\u{1B}[2K") }
            onListening(port)
        }
        func printIntervals() {
            guard showIntervals, let writer else { return }
            for line in writer.takeIntervalLines() { Console.error((show ? "\r\u{1B}[2K" : "") + line + "\n") }
        }
        repeat {
            announce()
            onTick()
            printIntervals()
            if show { Console.error("\r\u{1B}[2K" + text(configuration, control: control, since: started)) }
        } while !ended.wait(nanoseconds: waitsForAgents && !announced ? 10_000_000 : 200_000_000)
        if show { Console.error("\r\u{1B}[2K") }
    }

    private static func text(_ configuration: RunConfiguration, control: RunControl, since start: UInt64) -> String {
        let seconds = Double(MonotonicClock.now() - start) / 1e9
        let elapsed = "\(Int(seconds))s"
        guard control.isRunning.load(ordering: .relaxed) else {
            return "\(configuration.scenario.rawValue): connecting \(configuration.clients) clients… \(elapsed)"
        }
        // Fanout counts broadcasts (each is a message to every client), roundtrip its messages, chat its deliveries.
        let perSend = configuration.scenario == .fanout ? max(1, configuration.clients) : 1
        let unit = configuration.scenario == .fanout ? "broadcasts" : configuration.scenario == .chat ? "deliveries" : "messages"
        let sent = control.dispatchedMessages.load(ordering: .relaxed) / perSend
        let echoed = control.echoedMessages.load(ordering: .relaxed)
        let stopping = control.isStopRequested ? " · stopping" : ""
        if let duration = configuration.duration {
            return "\(configuration.scenario.rawValue): \(unit) sent \(sent) · echoes \(echoed) · \(elapsed) of "
                + "\(DurationText.format(duration))\(stopping)"
        }
        let total = control.totalMessages.load(ordering: .relaxed) / perSend
        let percent = total > 0 ? 100 * sent / total : 0
        return "\(configuration.scenario.rawValue): \(unit) sent \(sent)/\(total) (\(percent)%) · echoes \(echoed) · "
            + "\(elapsed)\(stopping)"
    }
}
