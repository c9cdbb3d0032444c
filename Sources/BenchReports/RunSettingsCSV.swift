import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import BenchScenarios

/// `run.csv`: one `key,value` row per setting of the run and fact about where and how it ran.
public enum RunSettingsCSV {
    public static let fileName = "run.csv"

    /// The status in the `run.csv` written when a run starts, replaced when it ends: a folder that still says it was
    /// cut off (killed, or the machine went down) and is read back as `incomplete`.
    public static let runningStatus = "running"

    /// The `run.csv` of a run that is starting: its settings, `status` ``runningStatus``.
    public static func startRows(_ configuration: RunConfiguration, metadata: RunMetadata) -> [(key: String, value: String)] {
        let recording = RunRecording(configuration: configuration, window: 0)  // its settings alone
        let analysis = RunCollector(configuration: configuration).analysis(of: recording)
        let keep: Set<String> = [
            "scenario", "command_line", "version", "seed", "clients", "rooms", "room_sizes", "messages", "count", "warmup",
            "run_for_ns",
            "interval", "interval_ns", "arrival", "payload_bytes", "under_ns", "timeout_ns", "heartbeat_ns",
            "dead_after_ns", "max_queue_bytes", "target", "framing", "qos", "streams_per_connection", "http2", "subscribe", "publish_template",
            "publish_url",
            "headers", "clients_file", "clients_file_rows", "target_ws_path", "protocol", "transport", "ws_path", "timestamps",
            "client_threads", "server_threads", "busy_poll", "io_engine", "host", "cpus", "kernel", "report_every_ns",
            "exact_budget_bytes", "reconnect_base_ns", "reconnect_max_ns", "reconnect_tries", "drop_connections_at_ns",
            "connect_interval_ns",
        ]
        return rows(analysis, metadata: metadata).compactMap { row in
            row.key == "status" ? (key: "status", value: runningStatus) : keep.contains(row.key) ? row : nil
        } + [(key: "pid", value: "\(Posix.processID)")]
    }

    /// The rows, in file order.
    public static func rows(_ analysis: RunAnalysis, metadata: RunMetadata) -> [(key: String, value: String)] {
        let recording = analysis.recording
        let configuration = recording.configuration
        let target = configuration.target
        let lostMessages = analysis.summary(of: .main(of: configuration.scenario))?.lost ?? 0
        let duration = Double(recording.sendingDuration)
        let harness = analysis.harnessLoad
        var rows: [(String, String)] = [
            ("scenario", configuration.scenario.rawValue),
            ("command_line", metadata.commandLine),
            ("version", metadata.version),
            ("status", recording.status.rawValue),
            ("status_reason", recording.statusReason ?? ""),
            ("ended_when_decided", recording.endedWhenDecided ? "1" : "0"),
            ("connects_after_syn_retry", "\(SynRetries.count(in: recording))"),
            ("listen_overflows", recording.listenOverflows.map(String.init) ?? ""),
            ("seed", "\(configuration.seed)"),
            ("clients", "\(configuration.clients)"),
            ("rooms", configuration.chatRooms.map { "\($0.rooms)" } ?? ""),
            ("room_sizes", configuration.chatRooms?.sizesText ?? ""),
            (configuration.scenario == .fanout ? "messages" : "count", configuration.duration == nil ? "\(configuration.messages)" : ""),
            ("warmup", "\(configuration.warmup)"),
            ("run_for_ns", configuration.duration.map { "\($0)" } ?? ""),
            ("interval", DurationText.format(configuration.interval)),
            ("interval_ns", "\(configuration.interval)"),
            ("arrival", configuration.isClosedLoop ? "closed-loop" : configuration.arrival.rawValue),
            ("payload_bytes", "\(configuration.payload)"),
            ("under_ns", "\(configuration.under)"),
            ("timeout_ns", "\(configuration.timeout)"),
            ("heartbeat_ns", "\(configuration.heartbeat)"),
            ("dead_after_ns", "\(configuration.deadAfter)"),
            ("max_queue_bytes", "\(configuration.maximumQueuedBytes)"),
            ("target", target?.url.description ?? ""),
            ("framing", target?.url.scheme == .tcp ? target!.framing.rawValue : ""),
            // What else of a target's protocol changes what is measured: bench compare notes each difference.
            ("qos", target?.url.scheme.record.takesQoS == true ? "\(target!.qos)" : ""),
            ("streams_per_connection", target?.url.scheme.record.carriesStreams == true ? "\(target!.streamsPerConnection)" : ""),
            ("http2", target?.overHTTP2 == true ? "yes" : ""),  // empty, as a run made before it lacks it: no difference
            ("subscribe", target?.subscribeText ?? ""),
            ("publish_template", target?.publishTemplate.text ?? ""),
            ("publish_url", target?.publishURL?.description ?? ""),
            ("headers", target?.headers.names ?? ""),  // their names: the values are secrets
            ("clients_file", target?.identities?.path ?? ""),  // its path and size: the values are secrets
            ("clients_file_rows", target?.identities.map { "\($0.rows.count)" } ?? ""),
            ("target_ws_path", target?.webSocketPath ?? ""),
            ("protocol", target?.protocolDescription?.name ?? ""),  // a built-in's name or the file's path
            ("transport", target.map { $0.url.scheme.rawValue } ?? configuration.transport.rawValue),
            ("ws_path", configuration.transport.isWebSocket ? configuration.webSocketPath : ""),
            ("tls_certificate_sha256", recording.tlsCertificateFingerprint),
            ("timestamps", configuration.timestamps.rawValue),
            ("client_threads", "\(configuration.clientThreads)"),
            ("server_threads", "\(configuration.serverThreads)"),
            ("server_processes", "\(max(1, recording.serverShards.count))"),
            ("server_process_cpu_pct", recording.serverShards.map {
                $0.measuringPercent.map { DecimalText.fixed($0, fractionDigits: 1) } ?? "-"
            }.joined(separator: " ")),
            ("busy_poll", configuration.busyPoll ? "1" : "0"),
            ("io_engine", configuration.ioEngine.rawValue),
            ("start_utc", UTCTime(unixNanoseconds: recording.startUnixNanoseconds).iso8601),
            ("clock_origin_ns", "\(recording.startNanoseconds)"),
            ("duration_s", DecimalText.fixed(duration / 1e9, fractionDigits: 3)),
            ("setup_s", recording.setupNanoseconds.map { DecimalText.fixed(Double($0) / 1e9, fractionDigits: 3) } ?? ""),
            ("host", configuration.host),
            ("server_address", recording.serverAddress),
            ("cpus", "\(metadata.cpus)"),
            ("kernel", metadata.kernel),
            ("server_cpus", recording.server.cpus.description),
            ("client_cpus", recording.clientThreads.cpus.description),
            ("server_cpus_allowed", recording.server.allowedCPUs.description),
            ("client_cpus_allowed", recording.clientThreads.allowedCPUs.description),
            ("messages_measured", "\(analysis.measuredMessages)"),
            ("messages_lost", "\(lostMessages)"),
            ("duplicate_echoes", "\(recording.ledger.duplicateEchoes)"),
            ("dropped_echoes", "\(recording.clientThreads.droppedEchoes)"),
            ("harness_cpu_busiest_pct", harness.busiestPercent.map { DecimalText.fixed($0, fractionDigits: 1) } ?? ""),
            ("harness_cpu_measuring_pct", harness.measuringPercent.map { DecimalText.fixed($0, fractionDigits: 1) } ?? ""),
            ("measuring_run_queue_wait_ns", recording.measuringThreadRunQueueWait.map { "\($0)" } ?? ""),
            // Every thread of the measuring process: the one that waited longest for a CPU while sending.
            ("longest_waiting_thread", recording.longestThreadWait?.name ?? ""),
            ("longest_waiting_thread_run_queue_ns", recording.longestThreadWait.map { "\($0.waiting)" } ?? ""),
            ("harness_cpu_clients_pct", harness.clientsPercent.map { DecimalText.fixed($0, fractionDigits: 1) } ?? ""),
            ("harness_saturated", harness.saturation == nil ? "0" : "1"),
            ("harness_saturation", harness.saturation ?? ""),
            ("harness_advice", harness.saturation == nil ? "" : harness.advice),
            ("server_backpressure", harness.serverBackpressure ?? ""),
            ("machine_disturbed", harness.disturbance == nil ? "0" : "1"),
            ("machine_disturbance", harness.disturbance ?? ""),
            ("other_processes_cpu_pct", recording.machine.map { DecimalText.fixed($0.othersCPU * 100, fractionDigits: 1) } ?? ""),
            ("target_server_cpu_pct", recording.machine?.serverCPU.map { DecimalText.fixed($0 * 100, fractionDigits: 1) } ?? ""),
            ("steal_pct", recording.machine.map { DecimalText.fixed($0.stealPercent, fractionDigits: 1) } ?? ""),
            ("connections_closed_early", "\(recording.connectionsClosedEarly)"),
            ("client_side_events", "\(recording.clientSideEvents)"),
            ("listener_events", "\(recording.listenerEvents)"),
            ("link_events", "\(recording.linkEvents)"),
            ("run_events", "\(recording.runEvents)"),
            ("events_not_recorded", "\(recording.eventsNotRecorded)"),
            ("accept_failures", "\(recording.server.acceptFailures)"),
            ("heartbeats_sent", "\(recording.clientThreads.heartbeatsSent)"),
            ("heartbeats_received", "\(recording.server.heartbeatsReceived)"),
            ("dead_clients", "\(recording.server.deadClients.count)"),
            ("dead_client_ids", recording.server.deadClients.map(String.init).joined(separator: " ")),
            ("slow_clients", "\(recording.slowClients.count)"),
            ("slow_client_ids", recording.slowClients.map { String($0.client) }.joined(separator: " ")),
            ("messages_dropped_queue_full", "\(recording.queueFullDrops.reduce(0, +))"),
            ("peak_queue_bytes", "\(recording.server.peakQueuedBytes)"),
            ("report_every_ns", "\(configuration.reportEvery)"),
            ("exact_budget_bytes", "\(configuration.exactBudget)"),
            ("window_sequences", "\(recording.windowSequences)"),
            ("window_waits", "\(recording.windowWaits)"),
            ("writer_waits", "\(recording.writerWaits)"),
            ("echoes_after_hand_on", "\(recording.ledger.echoesAfterHandOn)"),
            ("clock_error_ns", recording.agents.compactMap(\.clock.error).max().map { "\($0)" } ?? ""),
            ("reconnect_base_ns", configuration.reconnect.map { "\($0.base)" } ?? ""),
            ("reconnect_max_ns", configuration.reconnect.map { "\($0.maximum)" } ?? ""),
            ("reconnect_tries", configuration.reconnect.map { "\($0.tries)" } ?? ""),
            ("drop_connections_at_ns", configuration.dropConnectionsAt.map { "\($0)" } ?? ""),
            ("connect_interval_ns", configuration.connectInterval.map { "\($0)" } ?? ""),  // --connect-rate
            ("link", configuration.link?.text ?? ""),  // --link as given
            ("link_model", configuration.link?.summary ?? ""),
            // How late the emulated links let their bytes out behind the model (the worst link's): the harness's own.
            ("link_lateness_p50_ns", recording.linkLateness.map { "\($0.p50)" } ?? ""),
            ("link_lateness_p99_ns", recording.linkLateness.map { "\($0.p99)" } ?? ""),
            ("link_lateness_max_ns", recording.linkLateness.map { "\($0.maximum)" } ?? ""),
            ("connections_dropped", recording.server.connectionsDroppedAt == 0 ? "0" : "1"),
            ("client_outages", "\(recording.outages.count)"),
            ("client_outages_back", "\(recording.outagesBack)"),
            ("client_reconnects", "\(recording.clientThreads.reconnects)"),
            ("clients_gave_up", "\(recording.clientThreads.gaveUp)"),
            // The herd of returns: from the first close to the last return, and the most returns within a second.
            ("returns_last_back_ns", ReturnHerd(recording.outages).map { "\($0.lastBackAfterFirstClose)" } ?? ""),
            ("returns_peak_per_s", ReturnHerd(recording.outages).map { "\($0.peakReturnsPerSecond)" } ?? ""),
        ]
        if configuration.timestamps.usesKernel {
            let missing = analysis.missingKernelStamps
            let start = recording.kernelClockAtStart, end = recording.kernelClockAtEnd
            let drift = start.flatMap { start in end.map { Int64($0.offset) &- Int64(start.offset) } }
            rows.append(contentsOf: [
                ("kernel_send_stamps_missing", "\(missing.send)"),
                ("kernel_receive_stamps_missing", "\(missing.receive)"),
                ("kernel_clock_offset_ns", start.map { "\($0.offset)" } ?? ""),
                ("kernel_clock_uncertainty_ns", start.map { "\($0.uncertainty)" } ?? ""),
                ("kernel_clock_drift_ns", drift.map { "\($0)" } ?? ""),
            ])
        }
        if configuration.scenario.isBroadcast {
            if configuration.scenario == .chat && configuration.target == nil {
                // The relay is the server measured, not the harness: its load is said apart from the harness's.
                let busy = duration == 0 ? 0 : 100 * Double(recording.server.relayCPUTime) / duration
                rows.append(("relay_cpu_pct", DecimalText.fixed(busy, fractionDigits: 1)))
            }
            rows.append((configuration.scenario == .chat ? "messages_incomplete" : "broadcasts_incomplete", "\(analysis.summary(of: .spread)?.lost ?? 0)"))
        }
        return rows
    }

    /// Writes `run.csv`.
    public static func write<Sink: ByteSink>(
        _ analysis: RunAnalysis,
        metadata: RunMetadata,
        to writer: inout CSVWriter<Sink>
    ) throws {
        try writer.row(["key", "value"])
        for (key, value) in rows(analysis, metadata: metadata) {
            try writer.row([key, value])
        }
    }
}
