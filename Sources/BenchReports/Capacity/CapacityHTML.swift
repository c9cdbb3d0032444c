import BenchCore

/// `capacity.html`: one self-contained page (inline SVG, no scripts): per objective its measured figure against the
/// searched setting, each run a dot coloured by what its step decided of that objective, numbered by the steps at its
/// value, the objective's limit as a line and the capacity marked; then the steps with each objective's decision and
/// count beyond its limit, and the runs in order, each linked to its report.
enum CapacityHTML {
    static func render(_ report: CapacityReport) -> String {
        var body = "<h1>bench capacity \(MarkupText.escape(report.scenario)): \(report.axis.rawValue)</h1>\n"
        body += "<p class=\"line\">\(MarkupText.escape(report.line))</p>\n"
        for threshold in report.thresholds {
            body += "<p class=\"\(threshold.verdict.rawValue)\">threshold \(MarkupText.escape(threshold.expression)): "
                + threshold.verdict.rawValue + "</p>\n"
        }
        body += "<div class=\"row\">\n"
        let bracket = zoom(report)
        for (index, objective) in report.objectives.enumerated() {
            guard let whole = plot(report, objective: index, zoom: nil) else {
                body += "<p>\(MarkupText.escape(objective)): nothing was measured.</p>\n"
                continue
            }
            let legend = "a dot a run: green decided held, red decided broken, amber undecided, grey harness-bound; the "
                + "numbers are the steps at that value, in the order tried; dashed: the limit; blue: the capacity"
            if let bracket, let near = plot(report, objective: index, zoom: bracket) {
                body += "<figure class=\"zoom\">\(near)<figcaption>\(MarkupText.escape(objective)) against "
                    + "\(report.axis.rawValue) where the answer was decided, between the last pass and the first step "
                    + "that did not pass; \(legend)</figcaption></figure>\n"
                body += "<figure class=\"overview\">\(whole)<figcaption>the whole range</figcaption></figure>\n"
            } else {
                body += "<figure>\(whole)<figcaption>\(MarkupText.escape(objective)) against \(report.axis.rawValue), "
                    + "\(legend)</figcaption></figure>\n"
            }
        }
        body += "</div>\n" + stepTable(report)
        body += "<h2>runs</h2>\n<table><tr><th>step</th><th>\(report.axis.rawValue)</th><th>run</th>"
            + "<th>verdict</th>" + report.objectives.map { "<th>\(MarkupText.escape($0))</th>" }.joined()
            + "<th>harness, machine</th><th>report</th></tr>\n"
        for run in report.runs {
            body += "<tr><td class=\"n\">\(run.step)</td><td class=\"n\">\(MarkupText.escape(report.axis.text(run.value)))</td>"
                + "<td class=\"n\">\(run.repeatIndex)</td><td class=\"\(run.verdict.rawValue)\">\(run.verdict.rawValue)</td>"
                + run.objectives.map { "<td class=\"n\">\(MarkupText.escape($0.measuredText ?? "–"))</td>" }.joined()
                + "<td>\(MarkupText.escape(run.conditions))</td>"
                + "<td><a href=\"\(MarkupText.escape(run.folder))/\(HTMLRunReport.fileName)\">report</a></td></tr>\n"
        }
        return page(body + "</table>\n")
    }

    /// The steps: each one's runs and verdict, and per objective its decision with the values beyond the limit of
    /// those judged, pooled over the step's runs.
    private static func stepTable(_ report: CapacityReport) -> String {
        var html = "<h2>steps</h2>\n<p class=\"note\">\(MarkupText.escape(report.decisionNote)): beyond the "
            + "limit / judged.</p>\n<table><tr><th>step</th><th>\(report.axis.rawValue)</th><th>runs judged</th><th>verdict</th>"
            + report.objectives.map { "<th>\(MarkupText.escape($0))</th>" }.joined() + "</tr>\n"
        for step in report.steps {
            html += "<tr><td class=\"n\">\(step.number)\(step.isConfirmation ? " (again)" : "")</td>"
                + "<td class=\"n\">\(MarkupText.escape(report.axis.text(step.value)))</td>"
                + "<td class=\"n\">\(report.runsJudged(in: step))</td>"
                + "<td class=\"\(step.verdict.rawValue)\">\(step.verdict.rawValue)</td>"
                + step.judgement.objectives.map { objective in
                    let decision = objective.decision.rawValue
                    let counted = objective.beyond.map { "\($0) / \(objective.values)" } ?? "\(objective.values) values"
                    return "<td class=\"\(decision)\">\(decision) (\(counted))</td>"
                }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }

    /// What a run's step decided of objective `index`: its decision, or harness-bound.
    private static func decision(of run: CapacityReport.Run, objective index: Int, in report: CapacityReport) -> String {
        guard run.verdict != .harnessBound, let step = report.steps.first(where: { $0.number == run.step }),
            index < step.judgement.objectives.count
        else { return run.verdict.rawValue }
        return step.judgement.objectives[index].decision.rawValue
    }

    /// The values around the bracket that decided the answer (the last pass and the first step that did not pass,
    /// with half their gap again on either side), when the search tried values beyond it: there the steps that
    /// decide sit in a few pixels of the whole range.
    private static func zoom(_ report: CapacityReport) -> ClosedRange<Double>? {
        guard let pass = report.search.capacity, let fail = report.search.firstFail else { return nil }
        let (low, high) = (Double(min(pass, fail)), Double(max(pass, fail)))
        let pad = max(1, (high - low) / 2)
        let range = max(0, low - pad)...(high + pad)
        return report.runs.contains(where: { !range.contains(Double($0.value)) }) ? range : nil
    }

    /// The plot of objective `index` over the whole range (log scale), or over `zoom` (linear); nil when no run there
    /// measured it.
    private static func plot(_ report: CapacityReport, objective index: Int, zoom: ClosedRange<Double>?) -> String? {
        let measured = report.runs.compactMap { run -> (run: CapacityReport.Run, y: Double)? in
            guard index < run.objectives.count, let y = run.objectives[index].measuredNumber,
                zoom?.contains(Double(run.value)) ?? true
            else { return nil }
            return (run, y)
        }
        guard let first = report.runs.first?.objectives[safe: index], !measured.isEmpty else { return nil }
        let isTime = MeasuredUnit(first) == .microseconds
        let limit = first.limitNumber
        let xs = report.runs.map { Double($0.value) } + [Double(report.search.low), Double(report.search.high)]
        let xRange = zoom ?? max(1, xs.min()! / 1.3)...(xs.max()! * 1.3)
        let ys = measured.map(\.y) + (limit.map { [$0] } ?? [])
        let yScale: SVGPlot.Scale
        let yTicks: [(Double, String)]
        if isTime {  // microseconds
            let range = max(0.001, ys.min()! / 2)...max(0.002, ys.max()! * 2)
            yScale = .logarithmic(range)
            yTicks = AxisTicks.latency((range.lowerBound * 1000)...(range.upperBound * 1000)).map { ($0.0 / 1000, $0.1) }
        } else {
            let top = max(1, ys.max()! * 1.1)
            yScale = .linear(0...top)
            let unit = MeasuredUnit(first) == .percent ? "%" : ""
            yTicks = AxisTicks.linear(upTo: top) { DecimalText.fixed($0, fractionDigits: $0 < 10 ? 1 : 0) + unit }
        }
        var ticks: [(Double, String)] = []
        if zoom != nil {  // the values tried in the bracket, each named
            var lastNamed = -Double.infinity
            for value in Set(measured.map(\.run.value)).sorted() {
                // A name at least a twelfth of the axis from the last one: names of values close together do not
                // overlap (the dots' own labels and tooltips still say each).
                let named = Double(value) - lastNamed >= (xRange.upperBound - xRange.lowerBound) / 12
                if named { lastNamed = Double(value) }
                ticks.append((Double(value), named ? report.axis.text(value) : ""))
            }
        } else {
            var tick = 1.0
            while tick <= xRange.upperBound {
                for step in [1.0, 2, 5] where xRange.contains(tick * step) {
                    ticks.append((tick * step, step == 1 ? report.axis.text(UInt64(tick * step)) : ""))
                }
                tick *= 10
            }
        }
        var svg = SVGPlot(
            x: zoom == nil ? .logarithmic(xRange) : .linear(xRange), y: yScale, xLabel: report.axis.rawValue, yLabel: report.objectives[index],
            xTicks: ticks, yTicks: yTicks)
        // The limit's label at the hard end, under its line: the steps' dots crowd the easy end and the line itself.
        if let limit {
            svg.horizontalLine(at: limit, label: "limit \(first.limitText)", cssClass: "under", labelAtRight: true, labelBelow: true)
        }
        if let capacity = report.search.capacity {
            svg.verticalLine(at: Double(capacity), label: "capacity \(report.axis.text(capacity))", cssClass: "capacity")
        }
        for kind in ["pass", "fail", "undecided", "harness-bound"] {
            svg.points(
                measured.filter { decision(of: $0.run, objective: index, in: report) == kind }.map {
                    (Double($0.run.value), $0.y, "step \($0.run.step): \(report.axis.text($0.run.value)), "
                        + "\($0.run.objectives[index].measuredText ?? "–"), \(kind)")
                },
                cssClass: kind, radius: 4)
        }
        // One label per value tried, naming its steps ("2, 4"), by its highest dot: steps at one value do not pile up.
        for value in Set(measured.map(\.run.value)).sorted() {
            let here = measured.filter { $0.run.value == value }
            let steps = Array(Set(here.map(\.run.step))).sorted().map(String.init).joined(separator: ", ")
            svg.label(steps, x: Double(value), y: here.map(\.y).max()!)
        }
        return svg.svg
    }

    private static func page(_ body: String) -> String {
        ReportPage.html(title: "bench capacity", style: """
            .line { font-size: 16px; font-weight: 600; } .held { color: #1e7d32; } .breached { color: #c0262d; }
            .inconclusive { color: #a15c00; }
            td.pass { color: #1e7d32; } td.fail { color: #c0262d; } td.harness-bound { color: #6b7580; }
            td.undecided { color: #a15c00; } svg .undecided { fill: #d18a00; } .note { color: #566; }
            svg .step { font-size: 10px; fill: #334; }
            figure.overview svg { width: 280px; height: 120px; } figure.overview figcaption { font-size: 11px; }
            svg .pass { fill: #2e9d44; } svg .fail { fill: #c0262d; } svg .harness-bound { fill: #8a949e; }
            svg .under-label { font-size: 11px; fill: #c0262d; }
            svg .capacity { stroke: #1f6fb2; stroke-width: 1.5; } svg .capacity-label { font-size: 11px; fill: #1f6fb2; }
            """, body: body)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
