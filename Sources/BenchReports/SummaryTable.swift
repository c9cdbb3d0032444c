import BenchClients
import BenchCore
import BenchScenarios

/// The summary a terminal shows after a run: what ran, one line per metric, losses, and the run folder.
public enum SummaryTable {
    /// The table as text, lines ending in a newline.
    public static func render(
        _ analysis: RunAnalysis,
        thresholds: [ThresholdResult] = [],
        runFolder: String
    ) -> String {
        let recording = analysis.recording
        let configuration = recording.configuration
        var lines: [String] = [headline(recording), placement(analysis), ""]

        let header = SummaryRow.header(under: configuration.under)
        lines += TextColumns.align([header] + analysis.summaries.map(SummaryRow.cells), leftAligned: 1)
        lines.append("")
        if !analysis.roomSizes.isEmpty {
            lines += TextColumns.align(roomSizeRows(analysis.roomSizes), leftAligned: 1)
            lines.append("")
        }
        if !analysis.linkGroups.isEmpty {
            lines += TextColumns.align(linkGroupRows(analysis.linkGroups, configuration.scenario), leftAligned: 1)
            lines.append("")
        }
        lines.append(contentsOf: problems(analysis))
        lines.append(contentsOf: thresholds.map(ThresholdText.line))
        lines.append("run folder: \(runFolder)")
        return lines.map { $0 + "\n" }.joined()
    }

    /// Chat with rooms of different sizes: delivery and spread by room size.
    private static func roomSizeRows(_ groups: [RoomSizeBreakdown.Group]) -> [[String]] {
        func time(_ value: UInt64?) -> String { value.map(DurationText.display) ?? "-" }
        return [["room size", "rooms", "deliveries", "lost", "delivery p50", "delivery p99", "spread p99", "spread max"]]
            + groups.map { group in
                [
                    "\(group.label) members", "\(group.rooms)", "\(group.delivery.count)", "\(group.delivery.lost)",
                    time(group.delivery.p50), time(group.delivery.p99), time(group.spread.p99), time(group.spread.max),
                ]
            }
    }

    /// Behind a mix of links: the main metric (and a broadcast's spread) of each link group; summary.csv has them all.
    private static func linkGroupRows(_ groups: [LinkGroupBreakdown.Group], _ scenario: Scenario) -> [[String]] {
        func time(_ value: UInt64?) -> String { value.map(DurationText.display) ?? "-" }
        let main = RunAnalysis.Metric.main(of: scenario).rawValue
        return [["link", "clients", main, "lost", "p50", "p99", "max", "% under"] + (scenario.isBroadcast ? ["spread p99"] : [])]
            + groups.map { group in
                let summary = group.summaries.first { $0.metric == main }
                let spread = group.summaries.first { $0.metric == RunAnalysis.Metric.spread.rawValue }
                return [
                    group.name, "\(group.clients)", "\(summary?.count ?? 0)", "\(summary?.lost ?? 0)", time(summary?.p50),
                    time(summary?.p99), time(summary?.max),
                    summary?.percentUnder.map { DecimalText.fixed($0, fractionDigits: 2) + "%" } ?? "-",
                ] + (scenario.isBroadcast ? [time(spread?.p99)] : [])
            }
    }

    private static func headline(_ recording: RunRecording) -> String {
        let configuration = recording.configuration
        let clients = configuration.clients == 1 ? "1 client" : "\(configuration.clients) clients"
        let messages = configuration.duration.map { "for \(DurationText.format($0))" }
            ?? (configuration.scenario == .fanout
                ? "\(configuration.messages) broadcasts" : "\(configuration.messages) messages each")
        let rooms = configuration.chatRooms.map {
            " in \($0.rooms) room\($0.rooms == 1 ? "" : "s")\($0.sizes == .uniform ? "" : " (\($0.sizesText))")"
        } ?? ""
        let pace = configuration.isClosedLoop
            ? "closed loop" : "every \(DurationText.format(configuration.interval)) (\(configuration.arrival.rawValue))"
        let duration = DecimalText.fixed(Double(recording.sendingDuration) / 1e9, fractionDigits: 1)
        // What was measured: the built-in server over its transport, or the user's server at its URL.
        let server = configuration.target.map { "through \($0)" }
            ?? (configuration.scenario == .chat ? "through the built-in relay" : "over \(configuration.transport.rawValue)")
        return "\(configuration.scenario.rawValue) \(server): \(clients)\(rooms), \(messages), \(pace), "
            + "\(ByteSizeText.format(configuration.payload)), seed \(configuration.seed): "
            + "\(recording.status.rawValue) in \(duration)s"
    }

    private static func placement(_ analysis: RunAnalysis) -> String {
        let recording = analysis.recording
        let configuration = recording.configuration
        let threads = configuration.clientThreads == 1 ? "" : " (\(configuration.clientThreads) threads)"
        let writers = configuration.serverThreads == 1 ? "" : " (\(configuration.serverThreads) threads)"
        let stamps = configuration.timestamps == .user ? "user-space" : "kernel"
        let who = configuration.scenario == .chat
            ? "members" : configuration.target != nil && configuration.scenario == .fanout ? "subscribers" : "clients"
        let children = configuration.clientGroupChannels.count
        let clients: String
        if !recording.agents.isEmpty {
            clients = "\(who) in \(recording.agents.count) agent process\(recording.agents.count == 1 ? "" : "es")"
        } else if children > 0 {
            clients = "\(who) in \(children) child process\(children == 1 ? "" : "es")"
        } else if recording.serverShards.count > 1 {
            // Each server process runs its share of the clients itself, in its own child processes where it needs them
            // (servers.log): none are this one's.
            clients = "\(who) run by the \(recording.serverShards.count) server processes (see servers.log)"
        } else if recording.clientThreads.cpus.isEmpty {  // a target run's threads do not note their CPUs
            clients = "\(who) in this process\(threads)"
        } else {
            clients = "\(who) on CPU \(recording.clientThreads.cpus)\(threads)"
        }
        // A user's server runs wherever it runs: only the measuring clients' CPUs are known.
        let processes = recording.serverShards.count > 1 ? " in \(recording.serverShards.count) processes" : ""
        let server = configuration.target == nil
            ? "\(configuration.scenario == .chat ? "relay" : "server")\(processes) ran on CPU \(recording.server.cpus)\(writers), "
            : ""
        var line = server + "\(clients); \(stamps) timestamps" + (configuration.busyPoll ? "; busy polling" : "")
        if let link = configuration.link {
            line += link.isMix ? "; behind a mix of emulated links (\(link.summary))" : "; behind an emulated link (\(link.summary))"
        }
        let missing = analysis.missingKernelStamps
        if missing.send + missing.receive > 0 {
            line += " (\(missing.send + missing.receive) missing: user-space times stood in)"
        }
        return line
    }

    /// The connections closed early (run.csv's count: the server's), what else events.csv holds, and the commonest
    /// reasons, whose counts add up to the total with the rest named as such.
    static func eventsLine(_ recording: RunRecording) -> String {
        var counts: [String: Int] = [:]
        for event in recording.connectionEvents { counts[event.reason, default: 0] += 1 }
        let top = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(3)
        let total = recording.connectionEvents.count + recording.eventsNotRecorded
        let rest = total - top.reduce(0) { $0 + $1.value }
        let kept = recording.eventsNotRecorded > 0 ? "; the first \(recording.connectionEvents.count) kept" : ""
        return RunNotes.closedEarly(
            byServer: recording.connectionsClosedEarly, seenByClients: recording.clientSideEvents,
            ofListener: recording.listenerEvents, ofLink: recording.linkEvents, ofRun: recording.runEvents)
            + ": " + top.map { "\($0.key) (\($0.value))" }.joined(separator: "; ")
            + (rest > 0 ? "; \(rest) more" : "") + " — \(total) event\(total == 1 ? "" : "s")\(kept); see "
            + ConnectionEventsCSV.fileName
    }

    /// Lines about anything that went wrong: status, losses, closed connections.
    private static func problems(_ analysis: RunAnalysis) -> [String] {
        let recording = analysis.recording
        var lines: [String] = []
        if let reason = recording.statusReason { lines.append("status: \(recording.status.rawValue) (\(reason))") }
        let load = analysis.harnessLoad
        if let saturation = load.saturation { lines.append("harness saturated: \(saturation); \(load.advice)") }
        if let disturbance = load.disturbance { lines.append("machine disturbed: \(disturbance)") }
        if let backpressure = load.serverBackpressure { lines.append(backpressure) }
        if let warning = MeasurementYield(analysis).lossWarning { lines.append("warning: " + warning) }
        let connected = analysis.recording.connectTimes.filter { $0 > 0 }.count
        if let note = SynRetries.note(count: SynRetries.count(in: analysis.recording), of: connected) {
            lines.append("note: " + note)
        }
        if let note = SynRetries.overflowNote(recording.listenOverflows) { lines.append("note: " + note) }
        if let lateness = recording.linkLateness { lines.append(lateness.note) }
        // A roundtrip target's agents stamp both ends of each round trip on their own clock: its error moves no rtt.
        let onOneClock = recording.configuration.target != nil && recording.configuration.scenario == .roundtrip
        let clockError = onOneClock ? 0 : recording.agents.compactMap(\.clock.error).max() ?? 0
        if let spread = analysis.summary(of: .spread)?.p50 ?? analysis.summary(of: .rtt)?.p50, clockError > spread / 10 {
            lines.append("clock error: agents' stamps are put on the server's clock within ±\(DurationText.display(clockError)), "
                + "more than 10% of the \(analysis.summary(of: .spread) != nil ? "spread" : "rtt") p50 "
                + "(\(DurationText.display(spread))): compare these numbers with that in mind")
        }
        if !recording.outages.isEmpty {
            let back = recording.outagesBack
            let dropped = recording.server.connectionsDroppedAt == 0 ? "" : " (every connection closed by --drop-connections-at)"
            let times = analysis.summary(of: .reconnect).map { summary in
                summary.p50.map { "; reconnect p50 \(DurationText.display($0)), max \(DurationText.display(summary.max ?? $0))" } ?? ""
            } ?? ""
            let herd = ReturnHerd(recording.outages).map { herd in
                "; the last back \(DurationText.display(herd.lastBackAfterFirstClose)) after the first close, at most "
                    + "\(herd.peakReturnsPerSecond) returns in a second"
            } ?? ""
            lines.append("outages: \(recording.outages.count) connections closed during the run\(dropped); \(back) came back"
                + "\(times), \(recording.outages.count - back) did not\(herd)"
                + (recording.reportsOutages ? "; see \(ReconnectsCSV.fileName)" : ""))
        }
        let incomplete = analysis.broadcasts.filter { !$0.isComplete }.count
        if incomplete > 0 { lines.append("incomplete broadcasts: \(incomplete) (counted over the threshold)") }
        let slow = recording.slowClients
        if !slow.isEmpty {
            let shown = slow.prefix(5).map { "client \($0.client): \($0.dropped) messages not sent" }
            lines.append("slow clients: \(slow.count) (write queue full at "
                + "\(ByteSizeText.format(recording.configuration.maximumQueuedBytes))): "
                + shown.joined(separator: ", ") + (slow.count > 5 ? ", …" : ""))
        }
        if !recording.server.deadClients.isEmpty {
            let shown = recording.server.deadClients.prefix(10).map(String.init).joined(separator: ", ")
            lines.append("dead clients: \(recording.server.deadClients.count) (silent for "
                + "\(DurationText.format(recording.configuration.deadAfter))): \(shown)"
                + (recording.server.deadClients.count > 10 ? ", …" : ""))
        }
        if !recording.connectionEvents.isEmpty {
            lines.append(eventsLine(recording))
        }
        return lines
    }
}
