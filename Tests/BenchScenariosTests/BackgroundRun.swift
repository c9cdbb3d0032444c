import BenchClients
import BenchCore
import BenchNet
import BenchScenarios
import Glibc

/// A run in this process on a thread of its own, so a test can act on it while it goes on.
struct BackgroundRun {
    let control: RunControl
    private let thread: NativeThread<Result<RunRecording, RunError>>

    init(_ configuration: RunConfiguration) throws {
        let control = try RunControl()
        self.control = control
        thread = try NativeThread.spawn(name: "test-run") {
            Result { () throws(RunError) in try ScenarioRunner.run(configuration, control: control) }
        }
    }

    /// The server's port, once it listens (waits up to 10 s).
    func port() throws -> UInt16 {
        for _ in 0..<10_000 {
            let port = control.serverPort.load(ordering: .acquiring)
            if port != 0 { return UInt16(port) }
            usleep(1_000)
        }
        throw SystemError("waiting for the server's port", errno: ETIMEDOUT)
    }

    /// Waits until sending has begun (up to 10 s).
    func waitUntilRunning() {
        for _ in 0..<10_000 where !control.isRunning.load(ordering: .acquiring) { usleep(1_000) }
    }

    /// Waits until the server has dispatched at least `count` messages (it says so at each housekeeping tick), up to
    /// 60 s: a bound only a hang reaches.
    func waitUntilDispatched(_ count: Int) {
        let deadline = MonotonicClock.now() + 60_000_000_000
        while control.dispatchedMessages.load(ordering: .relaxed) < count && MonotonicClock.now() < deadline {
            usleep(1_000)
        }
    }

    /// A run that admits agents (token `token`) started in the background on 127.0.0.1, and `agents` agents of
    /// `clientsEach` clients on threads of the test, each on one client thread, speaking over loopback as on other hosts.
    static func withAgents(
        _ configuration: RunConfiguration, agents: Int, clientsEach: Int, token: String,
        agentReconnect: ReconnectBackoff? = nil
    ) throws -> (BackgroundRun, [NativeThread<Result<AgentRunner.Outcome, RunError>>]) {
        var configuration = configuration
        configuration.admitAgents(tokenHash: AgentToken.hash(token))
        configuration.host = "127.0.0.1"
        let run = try BackgroundRun(configuration)
        guard let address = SocketAddress(host: "127.0.0.1", port: try run.port()) else {
            throw SystemError("the run's address", errno: EINVAL)
        }
        let threads = try (0..<agents).map { _ in
            let control = try RunControl(clientsStopOnRequest: true)
            return try NativeThread.spawn(name: "test-agent") {
                Result { () throws(RunError) in
                    try AgentRunner.run(
                        server: address, clients: clientsEach, token: token, clientThreads: 1,
                        joinTimeout: 20_000_000_000, reconnect: agentReconnect, control: control)
                }
            }
        }
        return (run, threads)
    }

    /// Waits for the run to end and returns what it measured.
    func finish() throws -> RunRecording {
        try thread.join().get()
    }
}

/// A peer driven by hand: a plain blocking TCP socket to the server, to send it whatever a test wants.
struct RawPeer {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`; a small `receiveBuffer` makes the kernel stop taking data early.
    init(port: UInt16, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { throw SystemError("connect", errno: errno) }
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// A hello as client `client`, with the run's `token` (or another).
    func sayHello(as client: UInt32, token: UInt64, version: UInt8 = WireFormat.version) {
        var hello = [UInt8](repeating: 0, count: WireFormat.helloFrameSize)
        hello.withUnsafeMutableBytes { _ = Frame.encodeHello(into: $0, client: client, token: token, version: version) }
        send(hello)
    }

    /// True when the server closes the connection within `seconds` (reads and drops anything before).
    func serverCloses(within seconds: Int = 10) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return true }
            if count < 0 { return false }
        }
    }

    /// Reads one whole data frame of `size` bytes (blocking, up to 10 s); nil if the server closed first.
    func receiveFrame(size: Int) -> [UInt8]? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var frame = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = frame.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, size - filled, 0) }
            if count <= 0 { return nil }
            filled += count
        }
        return frame
    }

    /// Sends `frame` (a data frame) back as its echo, claiming the client read it at `received(sent)` and (if
    /// given) the kernel received it at `receivedKernel(sent)`.
    func echo(_ frame: [UInt8], received: (UInt64) -> UInt64, receivedKernel: ((UInt64) -> UInt64)? = nil) {
        var echo = frame
        echo.withUnsafeMutableBytes { bytes in
            let frame = Frame(kind: .data, bytes: bytes)
            frame.convertToEcho(
                receivedNanoseconds: received(frame.sentNanoseconds),
                receivedKernelNanoseconds: receivedKernel?(frame.sentNanoseconds) ?? 0)
        }
        send(echo)
    }

    func close() {
        Posix.close(fd)
    }
}
