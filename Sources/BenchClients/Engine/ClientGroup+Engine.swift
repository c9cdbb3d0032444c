import BenchCore
import BenchNet

/// A target's clients as a role of the one client engine (``ClientEngine``): a group ends with its channel; what is
/// due every 100 ms (connections silent too long, the protocol's keepalives, a stuck handshake's note); its members'
/// connects (in a Redis chat once their publishing connection is up); a connect that cannot start is that client
/// closed; and each event: the channel's orders, the publishing connection's, a client's connection's.
extension ClientGroup: ClientEngine {
    @usableFromInline var goesOn: Bool { !reports.isBroken }

    @usableFromInline func doDueWork(at now: UInt64) -> Bool {
        _ = openPublisher()
        closeSilentConnections()
        sendKeepAlives()
        reportStuckHandshake()
        return true
    }

    /// The keepalives, the silence and a stuck handshake are looked at every 100 ms.
    @usableFromInline var nextWorkDue: UInt64 { MonotonicClock.now() + 100_000_000 }

    /// A Redis chat's members wait for their publishing connection, whatever their pace says.
    @usableFromInline var firstConnectsMayStart: Bool { publisher?.isEstablished ?? true }

    @usableFromInline func cannotStart(_ place: Int, because error: any Error) -> Bool {
        report(.closed, place, "cannot connect to \(target): \(error)")
        return true
    }

    @usableFromInline var returnsAllowed: Bool { true }

    @usableFromInline func handle(token: UInt64, events: EpollEvents) -> Bool {
        switch token {
        // The channel: its orders (a drop of every connection; roundtrip's and chat's messages), or its end.
        case Self.endToken:
            let ordersGoOn = readOrders()
            loop.flushSends()  // the messages ordered go now, not after the rest of the pass
            takeFreshTransmitStamps()
            return ordersGoOn
        case Self.publisherToken: handlePublisher(events)
        default: handle(events, at: Int(token - 1))
        }
        return true
    }

    @usableFromInline func note(_ text: String) {
        report(.note, 0, text)
    }
}
