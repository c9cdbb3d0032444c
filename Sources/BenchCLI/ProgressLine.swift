import BenchNet
import BenchScenarios
import Synchronization

/// The line a terminal shows while a run goes on, redrawn a few times a second on standard error. Only on a
/// terminal: CI logs get none.
enum ProgressLine {
    /// Runs `configuration` on a thread of its own and redraws the progress line until it ends.
    static func run(
        _ configuration: RunConfiguration,
        control: RunControl,
        show: Bool
    ) -> Result<RunRecording, RunError> {
        let finished = Atomic<Bool>(false)
        let body: @Sendable () -> Result<RunRecording, RunError> = {
            defer { finished.store(true, ordering: .releasing) }
            return Result { () throws(RunError) in try ScenarioRunner.run(configuration, control: control) }
        }
        guard show else { return body() }
        let runner: NativeThread<Result<RunRecording, RunError>>
        do {
            runner = try NativeThread.spawn(name: "bench-run", body)
        } catch {
            return .failure(.system(error))
        }
        let started = MonotonicClock.now()
        while !finished.load(ordering: .acquiring) {
            Console.error("\r\u{1B}[2K" + text(configuration, control: control, since: started))
            Posix.sleep(nanoseconds: 200_000_000)
        }
        Console.error("\r\u{1B}[2K")
        return runner.join()
    }

    private static func text(_ configuration: RunConfiguration, control: RunControl, since start: UInt64) -> String {
        let seconds = Double(MonotonicClock.now() - start) / 1e9
        let elapsed = "\(Int(seconds))s"
        guard control.isRunning.load(ordering: .relaxed) else {
            return "\(configuration.scenario.rawValue): connecting \(configuration.clients) clients… \(elapsed)"
        }
        let total = control.totalMessages.load(ordering: .relaxed)
        let sent = control.dispatchedMessages.load(ordering: .relaxed)
        let echoed = control.echoedMessages.load(ordering: .relaxed)
        let percent = total > 0 ? 100 * sent / total : 0
        let stopping = control.isStopRequested ? " · stopping" : ""
        return "\(configuration.scenario.rawValue): sent \(sent)/\(total) (\(percent)%) · echoed \(echoed) · "
            + "\(elapsed)\(stopping)"
    }
}
