import BenchCore

extension CapacityReport {
    /// Writes `capacity.csv`, `capacity.md` and `capacity.html` into `folder`.
    public func write(into folder: String) throws {
        try AtomicFile.writeCSV(folder + "/" + Self.csvName) { csv in
            // Each objective's measured figure as a number, its unit in the column's name (times in µs), and the
            // values it judged with how many lay beyond its limit.
            let units = runs.first?.objectives.map { " (\(MeasuredUnit($0).rawValue))" }
                ?? Array(repeating: "", count: objectives.count)
            try csv.row(["step", axis.column, "repeat", "verdict", "confirmation"]
                + zip(objectives, units).flatMap { ["\($0) measured\($1)", "\($0) values", "\($0) beyond limit"] }
                + ["harness_saturated", "machine_disturbed", "run_folder", "search_elapsed_s"])
            for run in runs {
                let confirmation = steps.first { $0.number == run.step }?.isConfirmation == true
                var row = ["\(run.step)", "\(run.value)", "\(run.repeatIndex)", run.verdict.rawValue, confirmation ? "1" : "0"]
                for result in run.objectives {
                    row.append(result.measuredNumber.map { DecimalText.fixed($0, fractionDigits: 3) } ?? "")
                    row.append(result.evidence.map { "\($0.values)" } ?? "")
                    row.append(result.evidence?.beyond.map { "\($0)" } ?? "")
                }
                try csv.row(row + [
                    run.harnessSaturation == nil ? "0" : "1", run.disturbance == nil ? "0" : "1", run.folder,
                    DecimalText.fixed(Double(run.elapsed) / 1e9, fractionDigits: 3),
                ])
            }
        }
        try AtomicFile.writeText(folder + "/" + Self.markdownName, markdown)
        try AtomicFile.writeText(folder + "/" + Self.htmlName, CapacityHTML.render(self))
    }

    /// The runs of `step` judged, and those made where they differ (`0 of 2`): a saturated or disturbed run is run
    /// again, not judged.
    func runsJudged(in step: Step) -> String {
        let made = runs.filter { $0.step == step.number }.count
        return step.judgement.runs == made ? "\(made)" : "\(step.judgement.runs) of \(made)"
    }

    /// How the steps were decided, for capacity.md and capacity.html: "Each step decided at 95% from the values of
    /// all its runs; a value's first step passed at 75%: it only found the way".
    var decisionNote: String {
        func percent(_ share: Double) -> String { "\(DecimalText.trimmed(share * 100, fractionDigits: 2))%" }
        let finding = steps.first { !$0.isConfirmation && $0.judgement.passConfidence < confidence }?.judgement.passConfidence
        return "Each step decided at \(percent(confidence)) from the values of all its runs"
            + (finding.map { "; a value's first step passed at \(percent($0)): it only found the way" } ?? "")
    }

    /// `capacity.md`: the line, the thresholds on it, a table of the steps (each objective's values and how many lay
    /// beyond its limit, pooled over the step's runs) and one of the runs.
    public var markdown: String {
        var text = "### bench capacity \(scenario): \(axis.rawValue)\n\n**\(line)**\n\n"
        for threshold in thresholds { text += "- \(threshold.verdict.markdownMark) `\(threshold.expression)`\n" }
        text += (thresholds.isEmpty ? "" : "\n") + decisionNote + " (beyond the limit / judged).\n\n"
        text += "| step | \(axis.rawValue) | runs judged | verdict | " + objectives.map { "`\($0)`" }.joined(separator: " | ")
            + " |\n|---|---|--:|---|" + String(repeating: "---|", count: objectives.count) + "\n"
        for step in steps {
            text += "| \(step.number)\(step.isConfirmation ? " (again)" : "") | \(axis.text(step.value)) | "
                + "\(runsJudged(in: step)) | \(step.verdict.rawValue) | "
                + step.judgement.objectives.map { objective in
                    let counted = objective.beyond.map { "\($0)/\(objective.values)" } ?? "\(objective.values) values"
                    return "\(objective.decision.rawValue) (\(counted))"
                }.joined(separator: " | ") + " |\n"
        }
        text += "\n| step | \(axis.rawValue) | run | verdict | " + objectives.map { "`\($0)`" }.joined(separator: " | ")
            + " | harness, machine |\n|---|---|---|---|" + String(repeating: "---|", count: objectives.count + 1) + "\n"
        for run in runs {
            text += "| \(run.step) | \(axis.text(run.value)) | \(run.repeatIndex) | \(run.verdict.rawValue) | "
                + run.objectives.map { $0.measuredText ?? "–" }.joined(separator: " | ")
                + " | \(run.conditions) |\n"
        }
        return text
    }
}
