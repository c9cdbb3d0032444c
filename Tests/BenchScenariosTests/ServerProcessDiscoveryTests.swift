import BenchNet
import Foundation
import Glibc
import Testing

/// The server under test found on this machine by its port, so that its CPU is the server's, not "other work", and
/// the run's own processes told from the rest (`/proc`).
@Suite(.timeLimit(.minutes(10))) struct ServerProcessDiscoveryTests {
    @Test(.enabled(if: TargetServerTests.hasPython, "needs /usr/bin/python3"))
    func aServerListeningOnItsPortIsFoundByIt() throws {
        let server = try ExternalServer.python("framed_echo_server.py")
        defer { server.stop() }
        let pid = server.process.processIdentifier
        #expect(ProcessTable.listening(on: server.port) == [pid])
        // The run's own family holds its children (the fixture is one here): the server is counted apart from it.
        #expect(ProcessTable.now().family(of: [getpid()]).contains(pid))
        let before = try #require(MachineLoad.now(server: [pid]))
        usleep(50_000)
        let share = try #require(MachineLoad.now(server: [pid]).flatMap { $0.share(since: before) })
        #expect(share.serverCPU != nil && share.cpus >= 1 && share.othersCPU >= 0)
    }

    /// This process's own listeners (a built-in server's) are never a target's server. (Another process may listen on
    /// the same port number meanwhile, on another address such as ::1: a fixture of a test running beside this one.)
    @Test func thisProcesssOwnListenerIsNoTargetsServer() throws {
        let (own, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(own) }
        #expect(!ProcessTable.listening(on: address.port).contains(getpid()))
    }
}
