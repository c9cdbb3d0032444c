import BenchCore
import BenchNet

/// The built-in server's side of its own protocol on one connection: the bench frames in the bytes its transport
/// unwrapped. The connection carries bytes; this cuts them into frames (``FrameDecoder``) and holds the frame cut
/// between two reads. One per accepted connection, made at the accept (a class: the server's handling of a frame may
/// close and replace connections while the decoder is in use).
final class FrameReader {
    private(set) var decoder: FrameDecoder

    /// A reader for `connection`, refusing frames over `maximumFrameSize` bytes.
    init<T: Transport>(for connection: Connection<T>, maximumFrameSize: Int) {
        decoder = FrameDecoder(
            maximumFrameSize: maximumFrameSize,
            pendingCapacity: connection.readsFromRing ? FrameDecoder.ringCutCapacity(frameSize: maximumFrameSize) : 0)
    }

    /// A larger limit asked for while a read's frames were handled, taken once they are (``allowFrames(upTo:)``).
    private var limitAsked: Int?

    /// Accepts frames up to `size` bytes from the next read on: an agent's control connection, once welcomed, takes its
    /// reports (a link event's text is longer than a client's frame may be).
    func allowFrames(upTo size: Int) {
        limitAsked = size
    }

    /// Bytes of a frame not complete yet: a close now means the peer closed half-way through a frame.
    var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// Takes `buffer[0..<count]`, what one read of `connection` returned, and calls `onFrame` for every complete frame
    /// in place (the callee may change its bytes).
    ///
    /// - Returns: False when `onFrame` asked to stop; the rest is dropped.
    /// - Throws: ``FrameStreamError``: the transport's error, or a frame the peer got wrong.
    @inline(__always)
    func receive<T: Transport>(
        from connection: Connection<T>, _ buffer: UnsafeMutableRawBufferPointer, count: Int, _ onFrame: (Frame) -> Bool
    ) throws(FrameStreamError) -> Bool {
        var frameError: FrameError?
        let proceed: Bool
        do {
            proceed = try connection.receiveBytes(buffer, count: count) { bytes, endsMessage in
                do throws(FrameError) {
                    if endsMessage {
                        try decoder.messageEnded()
                        return true
                    }
                    return try decoder.decode(bytes, onFrame)
                } catch {
                    frameError = error
                    return false
                }
            }
        } catch {
            throw .connection(error)
        }
        if let limitAsked {
            decoder.allowFrames(upTo: limitAsked)
            self.limitAsked = nil
        }
        if frameError == .messageEndedInsideFrame {  // the WebSocket message was wrong: said as WebSocket says it
            throw .connection(.webSocket(WebSocketError(WebSocketCloseCode.protocolError, "\(FrameError.messageEndedInsideFrame)")))
        }
        if let frameError { throw .frame(frameError) }
        return proceed
    }
}

/// Why a connection carrying bench frames must be closed: its transport's error, or a frame its peer got wrong.
enum FrameStreamError: Error, CustomStringConvertible {
    case connection(ConnectionError)
    case frame(FrameError)

    var description: String {
        switch self {
        case .connection(let error): "\(error)"
        case .frame(let error): "\(error)"
        }
    }

    /// The WebSocket status code to close with.
    var closeCode: UInt16 {
        switch self {
        case .connection(let error): error.closeCode
        case .frame: WebSocketCloseCode.protocolError
        }
    }
}
