import BenchNet

/// What a report says about the run besides its measurements: how it was invoked and where it ran.
public struct RunMetadata: Sendable {
    /// The command line as typed, for `run.csv`.
    public var commandLine: String
    /// The harness's version.
    public var version: String
    /// `uname -sr` of the machine.
    public var kernel: String
    /// CPUs online on the machine.
    public var cpus: Int

    public init(commandLine: String, version: String, kernel: String = RunMetadata.currentKernel(), cpus: Int) {
        self.commandLine = commandLine
        self.version = version
        self.kernel = kernel
        self.cpus = cpus
    }

    /// The running kernel's name and release, as `uname -sr` prints them.
    public static func currentKernel() -> String { Posix.kernelRelease() }
}
