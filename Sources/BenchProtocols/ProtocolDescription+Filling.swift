import BenchCore

/// A description's variables filled in: a client's own (``expanding(_:)``), and the run's `--channel` and connection
/// parameters (``filling(channel:connectionParameters:)``).
extension ProtocolDescription {
    /// The description with `expand` applied to every text that goes on the wire or is looked for (a client's
    /// variables filled in).
    public func expanding(_ expand: (String) -> String) -> ProtocolDescription {
        var expanded = self
        expanded.steps = steps.map { Step(role: $0.role, sends: $0.sends, text: expand($0.text)) }
        expanded.replies = replies.map { Reply(when: expand($0.when), answer: expand($0.answer)) }
        expanded.heartbeat = heartbeat.map { Heartbeat(interval: $0.interval, text: expand($0.text)) }
        expanded.publish = publish.map { piece in
            guard case .text(let text) = piece else { return piece }
            return .text(expand(text))
        }
        expanded.errors = errors.map(expand)
        expanded.ignored = ignored.map(expand)
        expanded.deliveries = deliveries.map(expand)
        expanded.closing = closing.map(expand)
        expanded.captures = captures.map { capture in
            Capture(name: capture.name, patterns: capture.patterns.map { .init(before: expand($0.before), after: expand($0.after)) })
        }
        return expanded
    }

    /// True when a text uses `{channel}` or `{channel_json}`: the run needs `--channel`.
    public var asksForChannel: Bool {
        channel == nil && texts.contains { $0.contains("{channel}") || $0.contains("{channel_json}") }
    }

    /// True when a text uses `{connection_params}`.
    public var asksForConnectionParameters: Bool {
        texts.contains { $0.contains("{connection_params}") }
    }

    /// The description with `channel` in place of `{channel}`, and escaped as inside a JSON string in place of
    /// `{channel_json}`, and `connectionParameters` (else `{}`) in place of `{connection_params}`, in one pass (a value
    /// that holds a variable's name is not filled in again); a variable without its value stays. `{room}` and a
    /// `--clients-file`'s columns in the values are each client's, as elsewhere.
    public func filling(channel: String?, connectionParameters: String? = nil) -> ProtocolDescription {
        let escaped = channel.map { String(JSONText.string($0).dropFirst().dropLast()) }
        var filled = expanding { text in
            text.replacing(/\{(channel|channel_json|connection_params)\}/) { match in
                switch match.output.1 {
                case "channel": channel ?? String(match.output.0)
                case "channel_json": escaped ?? String(match.output.0)
                default: connectionParameters ?? "{}"
                }
            }
        }
        filled.channel = channel
        filled.connectionParameters = connectionParameters
        return filled
    }
}
