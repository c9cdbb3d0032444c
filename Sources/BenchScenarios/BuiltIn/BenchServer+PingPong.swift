import BenchClients
import BenchCore
import BenchNet

extension BenchServer {
    /// Closed loop with a single client: nothing to multiplex, so the server blocks in read on the one socket, as
    /// sockperf does, instead of in epoll_wait: one wake-up path and one system call fewer per round trip, which
    /// keeps the harness's own cost out of a ping-pong. A receive timeout of ``SendDriver/housekeepingInterval`` wakes it for
    /// timeouts, stop requests and progress; connections arriving meanwhile wait in the listen backlog.
    func pingPongOnBlockingSocket() throws(RunError) {
        let descriptor = peers[0].connection.descriptor
        if !configuration.busyPoll {  // busy polling spins on the non-blocking socket instead
            do {
                try Posix.setNonBlocking(descriptor, false)
                try Posix.setReceiveTimeout(descriptor, nanoseconds: SendDriver.housekeepingInterval)
            } catch {
                throw .system(error)
            }
        }
        var nextHousekeeping = MonotonicClock.now() + SendDriver.housekeepingInterval
        while true {
            if peers[0].connection.isOpen {
                readFrames(slot: 0)
                if stamps != nil { drainTransmitStamps(slot: 0) }
            }
            observedCPUs.insert(CPUPlacement.currentCPU())
            let now = MonotonicClock.now()
            loop.hearStopRequest()
            if !isStopping { sendClosedLoop(at: now) }
            if now >= nextHousekeeping {
                housekeeping(at: now)
                nextHousekeeping = now + SendDriver.housekeepingInterval
            }
            if isFinished(at: now) {
                recording.endMeasuring(at: now)
                return
            }
        }
    }
}
