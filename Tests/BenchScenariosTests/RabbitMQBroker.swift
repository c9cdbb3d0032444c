import Foundation
import Glibc
import Testing

/// Debian's RabbitMQ with its STOMP and Web-STOMP plugins, started for one test on free loopback ports with a folder of
/// its own (its data, logs, configuration and the Erlang port mapper's port), and killed after: the whole process
/// group, then its port mapper. It takes about 7 s to start on 2 CPUs.
final class RabbitMQBroker {
    static let server = "/usr/lib/rabbitmq/bin/rabbitmq-server"
    static let isInstalled = FileManager.default.isExecutableFile(atPath: server)
    static let notice: Comment = "rabbitmq-server is not installed: apt-get install -y rabbitmq-server"

    /// STOMP over TCP, and over WebSocket (at `/ws`).
    let stompPort: UInt16
    let webSocketPort: UInt16
    private let process: Process
    private let folder: String
    private let environment: [String: String]

    init() throws {
        folder = NSTemporaryDirectory() + "bench-rabbitmq-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        stompPort = try ExternalServer.freePort()
        webSocketPort = try ExternalServer.freePort()
        let configuration = """
            listeners.tcp = none
            stomp.listeners.tcp.1 = 127.0.0.1:\(stompPort)
            web_stomp.tcp.ip = 127.0.0.1
            web_stomp.tcp.port = \(webSocketPort)
            loopback_users = none
            """
        try configuration.write(toFile: folder + "/rabbitmq.conf", atomically: true, encoding: .utf8)
        try "[rabbitmq_stomp,rabbitmq_web_stomp].\n".write(toFile: folder + "/enabled_plugins", atomically: true, encoding: .utf8)
        let node = "bench\(stompPort)"
        environment = [
            "HOME": folder, "RABBITMQ_CONFIG_FILE": folder + "/rabbitmq", "RABBITMQ_ENABLED_PLUGINS_FILE": folder + "/enabled_plugins",
            "RABBITMQ_MNESIA_BASE": folder + "/mnesia", "RABBITMQ_LOG_BASE": folder + "/log",
            "RABBITMQ_NODENAME": "\(node)@localhost", "RABBITMQ_PID_FILE": folder + "/pid",
            "ERL_EPMD_ADDRESS": "127.0.0.1", "ERL_EPMD_PORT": "\(try ExternalServer.freePort())",
            "RABBITMQ_DIST_PORT": "\(try ExternalServer.freePort())", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            // Erlang's distribution listens on loopback only (it would take every address).
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        ]
        // Its own port mapper, which `epmd -kill` stops even while the node it served is still on its books.
        Self.portMapper(["-daemon", "-relaxed_command_check"], environment: environment)
        process = Process()
        // Foundation starts it as the leader of a process group of its own: the script, the Erlang VM and its helpers
        // are in it, and are killed as one.
        process.executableURL = URL(fileURLWithPath: Self.server)
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        guard getpgid(process.processIdentifier) == process.processIdentifier else {
            stop()
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "RabbitMQ is not a process group's leader"])
        }
        // Up when both listeners accept: 60 s only a hung broker reaches.
        for _ in 0..<600 {
            guard process.isRunning else { break }
            if ExternalServer.accepts(stompPort) && ExternalServer.accepts(webSocketPort) { return }
            usleep(100_000)
        }
        stop()
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "RabbitMQ did not start within 60 s"])
    }

    /// Kills the broker's process group, then its Erlang port mapper (a daemon of its own).
    func stop() {
        kill(-process.processIdentifier, SIGKILL)
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<200 where process.isRunning { usleep(50_000) }  // gone at once; 10 s only a hang reaches
        Self.portMapper(["-kill"], environment: environment)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs `epmd` with `arguments` (it returns at once: as a daemon it detaches) on the broker's port.
    private static func portMapper(_ arguments: [String], environment: [String: String]) {
        let mapper = Process()
        mapper.executableURL = URL(fileURLWithPath: "/usr/bin/epmd")
        mapper.arguments = arguments
        mapper.environment = environment
        mapper.standardOutput = FileHandle.nullDevice
        mapper.standardError = FileHandle.nullDevice
        if (try? mapper.run()) != nil { mapper.waitUntilExit() }
    }
}
