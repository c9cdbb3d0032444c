/// Exposition text as Prometheus reads it, in its text format (0.0.4) or OpenMetrics 1.0: a family's `HELP`, `TYPE`
/// (and OpenMetrics's `UNIT`) lines, then its samples; counters and info families named as each format wants them
/// (`_total` and `_info` samples, the family's name without them in OpenMetrics), and OpenMetrics's `# EOF` at the end.
struct ExpositionText {
    let openMetrics: Bool
    private(set) var text = ""

    init(openMetrics: Bool) {
        self.openMetrics = openMetrics
    }

    /// A family's comment lines.
    mutating func family(_ name: String, _ type: String, _ help: String, unit: String? = nil) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        if openMetrics, let unit { text += "# UNIT \(name) \(unit)\n" }
    }

    /// A sample line.
    mutating func sample(_ name: String, labels: String = "", _ value: String) {
        text += "\(name)\(labels) \(value)\n"
    }

    /// A gauge with one sample.
    mutating func gauge(_ name: String, _ help: String, _ value: String, unit: String? = nil) {
        family(name, "gauge", help, unit: unit)
        sample(name, value)
    }

    /// A counter `name_total`, a sample per label set.
    mutating func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
        family(openMetrics ? name : name + "_total", "counter", help)
        for sample in samples { self.sample(name + "_total", labels: sample.labels, "\(sample.value)") }
    }

    /// An info family `name_info` with its one sample of `labels` (a gauge of 1 in the text format).
    mutating func info(_ name: String, _ help: String, labels: String) {
        family(openMetrics ? name : name + "_info", openMetrics ? "info" : "gauge", help)
        sample(name + "_info", labels: labels, "1")
    }

    /// The text, with OpenMetrics's end.
    var finished: String { openMetrics ? text + "# EOF\n" : text }
}
