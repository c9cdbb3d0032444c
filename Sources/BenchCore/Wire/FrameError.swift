/// Why a byte stream is not a valid sequence of frames. The connection that sent it is closed.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The length field announces a frame larger than the receiver accepts; nothing was allocated for it.
    case frameTooLarge(announced: Int, limit: Int)
    /// The length field announces a frame too small for its kind.
    case frameTooSmall(kind: FrameKind, announced: Int, minimum: Int)
    /// A hello or heartbeat frame whose length is not exactly its fixed size.
    case wrongSize(kind: FrameKind, announced: Int, expected: Int)
    /// The kind byte is not one of ``FrameKind``.
    case unknownKind(UInt8)
    /// The length field is zero: not even a kind byte follows.
    case emptyFrame
    /// A message of a message-oriented layer (WebSocket) ended with part of a frame still to come: frames must not
    /// straddle messages.
    case messageEndedInsideFrame

    public var description: String {
        switch self {
        case .frameTooLarge(let announced, let limit):
            return "frame of \(announced) bytes announced, more than the limit of \(limit) bytes"
        case .frameTooSmall(let kind, let announced, let minimum):
            return "\(kind) frame of \(announced) bytes announced, less than its minimum of \(minimum) bytes"
        case .wrongSize(let kind, let announced, let expected):
            return "\(kind) frame of \(announced) bytes announced, expected \(expected)"
        case .unknownKind(let byte):
            return "unknown frame kind \(byte)"
        case .emptyFrame:
            return "frame with a zero length field"
        case .messageEndedInsideFrame:
            return "a message ended inside a bench frame"
        }
    }
}
