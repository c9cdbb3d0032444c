/// A duration or size that could not be read: the text and why, for a usage message.
public struct UnitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// Why it is not valid, e.g. "missing unit (ns, us, ms, s)".
    public let reason: String

    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { "'\(text)': \(reason)" }
}
