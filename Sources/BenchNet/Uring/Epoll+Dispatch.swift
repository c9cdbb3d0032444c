/// Every event loop's wait, written once for both engines.
extension Epoll {
    /// Waits for the loop's events, at most `timeoutMilliseconds` (-1: until one comes; 0: not at all), and hands each
    /// to `handle` as its token and events. With the io_uring engine (`receiver`), the loop waits in the ring, which
    /// polls this epoll: a connection's receive completion comes as its `.readable`, and epoll's own events as
    /// always. `handle` returns false to end the pass (the rest of it is not handed on); the call then returns false.
    @discardableResult
    public func dispatchEvents(
        through receiver: UringReceiver?, timeoutMilliseconds: Int32, _ handle: (UInt64, EpollEvents) -> Bool
    ) throws(SystemError) -> Bool {
        guard let receiver else { return try dispatchReady(timeoutMilliseconds: timeoutMilliseconds, handle) }
        let timeout = timeoutMilliseconds < 0 ? nil : UInt64(timeoutMilliseconds) * 1_000_000
        return try dispatchEvents(through: receiver, timeoutNanoseconds: timeout, handle)
    }

    /// ``dispatchEvents(through:timeoutMilliseconds:_:)`` with a timeout to the nanosecond (nil: until an event comes).
    @discardableResult
    public func dispatchEvents(
        through receiver: UringReceiver?, timeoutNanoseconds timeout: UInt64?, _ handle: (UInt64, EpollEvents) -> Bool
    ) throws(SystemError) -> Bool {
        guard let receiver else { return handOut(try wait(timeoutNanoseconds: timeout), handle) }
        var proceed = true
        var failure: SystemError?
        try receiver.wait(timeoutNanoseconds: timeout) { event in
            guard proceed else { return }
            switch event {
            case .epollReady:
                do throws(SystemError) {
                    proceed = try dispatchReady(timeoutMilliseconds: 0, handle)
                } catch {
                    failure = error
                    proceed = false
                }
            case .readable(let token):
                proceed = handle(token, .readable)
            }
        }
        if let failure { throw failure }
        return proceed
    }

    /// `epoll_wait`, then each ready descriptor's token and events to `handle` until it returns false.
    private func dispatchReady(
        timeoutMilliseconds: Int32, _ handle: (UInt64, EpollEvents) -> Bool
    ) throws(SystemError) -> Bool {
        handOut(try wait(timeoutMilliseconds: timeoutMilliseconds), handle)
    }

    /// Each of the last wait's `count` ready descriptors' token and events to `handle` until it returns false.
    private func handOut(_ count: Int, _ handle: (UInt64, EpollEvents) -> Bool) -> Bool {
        for index in 0..<count {
            let (token, events) = event(at: index)
            guard handle(token, events) else { return false }
        }
        return true
    }
}
