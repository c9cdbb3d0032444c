/// The clock exchange of an agent's control connection, NTP-style: the agent sends a probe stamped t1 on its clock, the
/// server stamps its read t2 and its write t3 on its own, the agent stamps the reply's arrival t4. Then
/// offset = ((t2 − t1) + (t3 − t4)) / 2 (the server's clock − the agent's) and the truth lies within ± round trip / 2,
/// round trip = (t4 − t1) − (t3 − t2). ``ClockEstimate`` keeps the probe with the shortest round trip.
public struct ClockProbe: Equatable, Sendable {
    public var t1: UInt64
    public var t2: UInt64
    public var t3: UInt64

    public init(t1: UInt64, t2: UInt64 = 0, t3: UInt64 = 0) {
        (self.t1, self.t2, self.t3) = (t1, t2, t3)
    }

    /// Reads a probe or reply frame (the decoder checked its kind and size).
    public init(_ frame: Frame) {
        (t1, t2, t3) = (frame.load(UInt64.self, at: 8), frame.load(UInt64.self, at: 16), frame.load(UInt64.self, at: 24))
    }

    /// Writes it as a frame of `kind` (``FrameKind/clockProbe`` or ``FrameKind/clockReply``) into the first
    /// ``WireFormat/clockFrameSize`` bytes of `buffer`.
    public func encode(_ kind: FrameKind, into buffer: UnsafeMutableRawBufferPointer) {
        writeClockFrame(kind, [t1, t2, t3], into: buffer)
    }
}

/// What an agent found of the server's clock: the offset to add to its own stamps and how far off it can be.
public struct ClockEstimate: Equatable, Sendable {
    /// The server's clock − the agent's, in nanoseconds.
    public var offset: Int64
    /// Half the shortest round trip: the truth is within ± this of ``offset``.
    public var error: UInt64
    /// Probes it was drawn from.
    public var probes: Int

    public init(offset: Int64, error: UInt64, probes: Int) {
        (self.offset, self.error, self.probes) = (offset, error, probes)
    }

    /// The estimate from the probe with the shortest round trip among `exchanges` (a probe's reply and its arrival t4);
    /// nil when none is usable (a reply whose times cannot be true).
    public static func best(of exchanges: [(reply: ClockProbe, t4: UInt64)]) -> ClockEstimate? {
        var best: ClockEstimate?
        for (reply, t4) in exchanges {
            guard t4 >= reply.t1, reply.t3 >= reply.t2, t4 - reply.t1 >= reply.t3 - reply.t2,
                let t1 = Int64(exactly: reply.t1), let t2 = Int64(exactly: reply.t2), let t3 = Int64(exactly: reply.t3),
                let t4 = Int64(exactly: t4)
            else { continue }
            // Each difference fits (all four are 0...Int64.max); their sum may not, from a server that lies: skipped.
            let (sum, overflow) = (t2 - t1).addingReportingOverflow(t3 - t4)
            guard !overflow else { continue }
            let roundTrip = UInt64((t4 - t1) - (t3 - t2))
            let offset = sum / 2
            if best == nil || roundTrip / 2 < best!.error {
                best = ClockEstimate(offset: offset, error: roundTrip / 2 + roundTrip % 2, probes: exchanges.count)
            }
        }
        return best
    }

    /// Reads a clock report frame.
    public init(_ frame: Frame) {
        offset = Int64(bitPattern: frame.load(UInt64.self, at: 8))
        error = frame.load(UInt64.self, at: 16)
        probes = Int(min(frame.load(UInt64.self, at: 24), UInt64(Int.max)))
    }

    /// Writes a clock report frame into the first ``WireFormat/clockFrameSize`` bytes of `buffer`.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        writeClockFrame(.clockReport, [UInt64(bitPattern: offset), error, UInt64(probes)], into: buffer)
    }
}

/// Writes a clock frame of `kind` whose body is `values`, big-endian from offset 8.
private func writeClockFrame(_ kind: FrameKind, _ values: [UInt64], into buffer: UnsafeMutableRawBufferPointer) {
    let frame = Frame.encodeFixed(kind, size: WireFormat.clockFrameSize, into: buffer)
    for (index, value) in values.enumerated() { frame.store(value, at: 8 + 8 * index) }
}
