import BenchCore
import BenchProtocols

/// `--publish`: the message a fan-out target's publisher sends, with `{marker}` (required) and `{padding}` (filled so
/// that the message is `--payload` bytes where it can be).
public struct PublishTemplate: Sendable, Equatable {
    public let text: String

    public init(_ text: String) throws(TargetURL.Invalid) {
        guard text.firstRange(of: "{marker}") != nil else {
            throw TargetURL.Invalid(reason: "the template must hold {marker}, where the harness puts its marker")
        }
        self.text = text
    }

    /// The template with `{name}` replaced by `number`: a chat member's `{room}`, a client's own `{client}`.
    func filling(_ name: String, with number: Int) -> PublishTemplate {
        try! PublishTemplate(text.replacing("{\(name)}", with: "\(number)"))  // the marker stays
    }

    /// The default for Redis and NATS: the marker and padding, nothing else.
    public static let bare = try! PublishTemplate("{marker}{padding}")

    /// The template with a placeholder marker and the padding for a `size`-byte message, and the marker's offset.
    public func expand(size: Int) -> (bytes: [UInt8], markerOffset: Int) {
        let fixed = text.replacing("{marker}", with: "").replacing("{padding}", with: "").utf8.count + Marker.size
        let padding = String(repeating: "x", count: max(0, size - fixed))
        let expanded = Array(text.replacing("{padding}", with: padding).utf8)
        let placeholder = Array("{marker}".utf8)
        let offset = (0...(expanded.count - placeholder.count)).first {
            expanded[$0..<$0 + placeholder.count].elementsEqual(placeholder)
        }!
        var bytes = expanded
        bytes.replaceSubrange(offset..<offset + placeholder.count, with: [UInt8](repeating: UInt8(ascii: "#"), count: Marker.size))
        return (bytes, offset)
    }
}
