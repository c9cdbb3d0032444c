import BenchCore
import Testing

@testable import BenchProtocols

/// The built-in server's protocol as a simulated client speaks it, with bytes alone: what the server sends, split at
/// every point, and what the client owes it, write by write.
@Suite struct BenchEchoSessionTests {
    private static let messageSize = 64

    private func session(client: UInt32 = 7, token: UInt64 = 0xABCD) -> BenchEchoSession {
        BenchEchoSession(client: client, token: token, maximumFrameSize: Self.messageSize, readsFromRing: false)
    }

    private func dataFrame(_ sequence: UInt32, client: UInt32 = 7) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.messageSize)
        bytes.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(into: $0, sequence: sequence, client: client, sentNanoseconds: 1_000 + UInt64(sequence))
        }
        return bytes
    }

    /// The echo a client must write for `data` read at `now` (`kernel`), built by the wire format apart from the session.
    private func echo(of data: [UInt8], now: UInt64, kernel: UInt64) -> [UInt8] {
        var bytes = data
        bytes.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(
                into: $0, kind: .echo, sequence: Frame(kind: .data, bytes: $0).sequence, client: 7,
                sentNanoseconds: Frame(kind: .data, bytes: $0).sentNanoseconds, receivedNanoseconds: now,
                receivedKernelNanoseconds: kernel)
        }
        return bytes
    }

    private func fixedFrame(_ encode: (UnsafeMutableRawBufferPointer) -> Frame, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { _ = encode($0) }
        return bytes
    }

    /// Feeds `chunks` as reads at `now`; returns whether the session wants more, and every write it owes, apart.
    private func feed(
        _ session: BenchEchoSession, _ chunks: [[UInt8]], endsMessage: Bool = false, now: UInt64 = 5_000, kernel: UInt64 = 4_000
    ) throws(BenchEchoError) -> (proceed: Bool, writes: [[UInt8]]) {
        var proceed = true
        for var chunk in chunks {
            var failure: BenchEchoError?
            chunk.withUnsafeMutableBytes { bytes in
                do throws(BenchEchoError) {
                    proceed = try session.received(bytes, endsMessage: endsMessage, readAt: now, kernel: kernel)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            if !proceed { break }
        }
        return (proceed, writes(of: session))
    }

    private func writes(of session: BenchEchoSession) -> [[UInt8]] {
        var writes: [[UInt8]] = []
        session.outbox.drain { writes.append(Array($0)) }
        return writes
    }

    @Test func itSaysHelloWithItsIdAndTheRunsTokenOnceConnected() {
        let session = session()
        session.connected()
        let hello = fixedFrame({ Frame.encodeHello(into: $0, client: 7, token: 0xABCD) }, size: WireFormat.helloFrameSize)
        #expect(writes(of: session) == [hello])
    }

    @Test func aHeartbeatIsAFrameOfItsOwn() {
        let session = session()
        session.heartbeat()
        #expect(writes(of: session) == [fixedFrame({ Frame.encodeHeartbeat(into: $0, client: 7) }, size: WireFormat.heartbeatFrameSize)])
    }

    @Test func everyDataFrameIsEchoedStampedAtEverySplitThenTheGoodbyeEndsTheRun() throws {
        let first = dataFrame(1)
        let second = dataFrame(2)
        let goodbye = fixedFrame({ Frame.encodeGoodbye(into: $0, client: 0) }, size: WireFormat.heartbeatFrameSize)
        let stream = first + second + goodbye
        for cut in 1..<stream.count {
            let session = session()
            let (proceed, writes) = try feed(session, [Array(stream[..<cut]), Array(stream[cut...])])
            #expect(writes == [echo(of: first, now: 5_000, kernel: 4_000), echo(of: second, now: 5_000, kernel: 4_000)], "cut at \(cut)")
            #expect(!proceed && session.heardGoodbye, "cut at \(cut)")
            // Nothing more is read after the goodbye.
            #expect(try feed(session, [dataFrame(3)]).writes.isEmpty)
        }
    }

    @Test func aStreamCutIntoSingleBytesLosesNothing() throws {
        let frames = (1...3).map { dataFrame(UInt32($0)) }
        let session = session()
        let (proceed, writes) = try feed(session, frames.joined().map { [$0] })
        #expect(proceed)
        #expect(writes == frames.map { echo(of: $0, now: 5_000, kernel: 4_000) })
    }

    @Test func framesTheServerMustNotSendAreRefusedWithTheirKind() throws {
        for kind in [FrameKind.echo, .delivery, .read] {
            var frame = dataFrame(1)
            frame[4] = kind.rawValue
            #expect(throws: BenchEchoError.unexpected(kind)) { try feed(session(), [frame]) }
        }
        let hello = fixedFrame({ Frame.encodeHello(into: $0, client: 7, token: 1) }, size: WireFormat.helloFrameSize)
        #expect(throws: BenchEchoError.unexpected(.hello)) { try feed(session(), [hello]) }
        #expect("\(BenchEchoError.unexpected(.hello))" == "the server sent a hello frame")
    }

    @Test func aBrokenHeaderIsRefusedBeforeAnythingIsKept() throws {
        #expect(throws: BenchEchoError.frame(.unknownKind(200))) { try feed(session(), [[0, 0, 0, 9, 200]]) }
        #expect(throws: BenchEchoError.frame(.frameTooLarge(announced: 1_004, limit: Self.messageSize))) {
            try feed(session(), [[0, 0, 3, 232, FrameKind.data.rawValue]])
        }
    }

    @Test func aMessageMayEndOnlyBetweenFrames() throws {
        let frame = dataFrame(1)
        let whole = session()
        _ = try feed(whole, [frame])
        #expect(try feed(whole, [[]], endsMessage: true).proceed)
        let cut = session()
        _ = try feed(cut, [Array(frame[..<10])])
        #expect(throws: BenchEchoError.frame(.messageEndedInsideFrame)) { try feed(cut, [[]], endsMessage: true) }
    }

    @Test func aNewConnectionStartsOverWithNothingOfTheLastOne() throws {
        let session = session()
        let frame = dataFrame(1)
        _ = try feed(session, [Array(frame[..<10])])
        session.connected()
        session.restart()
        #expect(writes(of: session).isEmpty)
        let (_, writes) = try feed(session, [frame])
        #expect(writes == [echo(of: frame, now: 5_000, kernel: 4_000)])
    }
}
