import BenchCore

/// A small SVG chart: a plot area with axes, ticks and labels, and the marks drawn into it.
///
/// Either axis is logarithmic (latencies, percentile positions) or linear (time, counts). Coordinates given to the drawing
/// methods are data values; the plot maps them into its area.
struct SVGPlot {
    enum Scale {
        case linear(ClosedRange<Double>)
        case logarithmic(ClosedRange<Double>)

        /// Where `value` falls in the range, 0...1.
        func fraction(_ value: Double) -> Double {
            switch self {
            case .linear(let range):
                return range.upperBound > range.lowerBound
                    ? (value - range.lowerBound) / (range.upperBound - range.lowerBound) : 0
            case .logarithmic(let range):
                let low = portableLog2(range.lowerBound)
                let high = portableLog2(range.upperBound)
                return high > low ? (portableLog2(Swift.max(value, range.lowerBound)) - low) / (high - low) : 0
            }
        }
    }

    let width = 560.0
    /// The labels placed so far: left and right edges and baseline, in pixels.
    private var labelBoxes: [(left: Double, right: Double, baseline: Double)] = []
    let height = 240.0
    let left = 64.0
    let right = 16.0
    let top = 16.0
    let bottom = 40.0
    let x: Scale
    let y: Scale
    private var marks: [String] = []

    init(x: Scale, y: Scale, xLabel: String, yLabel: String, xTicks: [(Double, String)], yTicks: [(Double, String)]) {
        self.x = x
        self.y = y
        let plotBottom = height - bottom
        marks.append("<rect x=\"\(left)\" y=\"\(top)\" width=\"\(width - left - right)\" height=\"\(plotBottom - top)\" class=\"area\"/>")
        for (value, label) in xTicks {
            let px = format(mapX(value))
            marks.append("<line x1=\"\(px)\" y1=\"\(top)\" x2=\"\(px)\" y2=\"\(plotBottom)\" class=\"grid\"/>")
            // A label that would stick out of the picture is aligned with its edge instead of centred.
            let halfWidth = Double(label.count) * 3.4
            let (textX, anchor) =
                mapX(value) + halfWidth > width ? (format(width - 1), "end")
                : mapX(value) - halfWidth < 0 ? ("1", "start") : (px, "middle")
            marks.append("<text x=\"\(textX)\" y=\"\(plotBottom + 14)\" class=\"tick\" text-anchor=\"\(anchor)\">\(MarkupText.escape(label))</text>")
        }
        for (value, label) in yTicks {
            let py = format(mapY(value))
            marks.append("<line x1=\"\(left)\" y1=\"\(py)\" x2=\"\(width - right)\" y2=\"\(py)\" class=\"grid\"/>")
            marks.append("<text x=\"\(left - 6)\" y=\"\(py)\" class=\"tick\" text-anchor=\"end\" dominant-baseline=\"middle\">\(MarkupText.escape(label))</text>")
        }
        marks.append("<text x=\"\(left + (width - left - right) / 2)\" y=\"\(height - 6)\" class=\"label\" text-anchor=\"middle\">\(MarkupText.escape(xLabel))</text>")
        marks.append("<text x=\"14\" y=\"\(top + (plotBottom - top) / 2)\" class=\"label\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(top + (plotBottom - top) / 2))\">\(MarkupText.escape(yLabel))</text>")
    }

    func mapX(_ value: Double) -> Double { left + x.fraction(value) * (width - left - right) }

    func mapY(_ value: Double) -> Double { height - bottom - y.fraction(value) * (height - bottom - top) }

    /// A line through the points, in order.
    mutating func line(_ points: [(Double, Double)], cssClass: String) {
        guard !points.isEmpty else { return }
        let path = points.map { "\(format(mapX($0.0))),\(format(mapY($0.1)))" }.joined(separator: " ")
        marks.append("<polyline points=\"\(path)\" class=\"\(cssClass)\"/>")
    }

    /// A vertical line across the plot at `value`, labelled on whichever side has room.
    mutating func verticalLine(at value: Double, label: String, cssClass: String) {
        let x = mapX(value)
        let px = format(x)
        let leftOfLine = x > (width - right) - 100
        marks.append("<line x1=\"\(px)\" y1=\"\(top)\" x2=\"\(px)\" y2=\"\(height - bottom)\" class=\"\(cssClass)\"/>")
        marks.append("<text x=\"\(px)\" y=\"\(top + 12)\" dx=\"\(leftOfLine ? -4 : 4)\" "
            + "text-anchor=\"\(leftOfLine ? "end" : "start")\" class=\"\(cssClass)-label\">\(MarkupText.escape(label))</text>")
    }

    /// A bar from `x0` to `x1`, from the x axis up to `value`.
    mutating func bar(from x0: Double, to x1: Double, height value: Double, cssClass: String) {
        let px0 = mapX(x0)
        let px1 = mapX(x1)
        let py = mapY(value)
        marks.append("<rect x=\"\(format(px0))\" y=\"\(format(py))\" width=\"\(format(Swift.max(0.5, px1 - px0 - 0.5)))\" "
            + "height=\"\(format(height - bottom - py))\" class=\"\(cssClass)\"/>")
    }

    /// Small circles, or crosses for `cross`.
    mutating func points(_ points: [(Double, Double)], cssClass: String, cross: Bool = false) {
        for (px, py) in points.map({ (mapX($0.0), mapY($0.1)) }) {
            if cross {
                marks.append("<path d=\"M\(format(px - 3)),\(format(py - 3))l6,6m0,-6l-6,6\" class=\"\(cssClass)\"/>")
            } else {
                marks.append("<circle cx=\"\(format(px))\" cy=\"\(format(py))\" r=\"1.8\" class=\"\(cssClass)\"/>")
            }
        }
    }

    /// A horizontal line across the plot at `value`, labelled above it (or `labelBelow` it) at the left or right end.
    mutating func horizontalLine(
        at value: Double, label: String, cssClass: String, labelAtRight: Bool = false, labelBelow: Bool = false
    ) {
        let py = format(mapY(value))
        marks.append("<line x1=\"\(left)\" y1=\"\(py)\" x2=\"\(width - right)\" y2=\"\(py)\" class=\"\(cssClass)\"/>")
        let px = labelAtRight ? width - right - 4 : left + 4
        marks.append("<text x=\"\(format(px))\" y=\"\(py)\" dy=\"\(labelBelow ? 13 : -4)\" text-anchor=\"\(labelAtRight ? "end" : "start")\" "
            + "class=\"\(cssClass)-label\">\(MarkupText.escape(label))</text>")
    }

    /// Where a ``note(_:at:cssClass:)`` goes: inside the plot area, by an edge.
    enum NotePlace {
        case topLeft, topRight, bottomLeft, bottomRight
    }

    /// A line of text inside the plot area, by an edge: for what lies off the axes.
    mutating func note(_ text: String, at place: NotePlace, cssClass: String) {
        let atRight = place == .topRight || place == .bottomRight
        let atTop = place == .topLeft || place == .topRight
        let px = atRight ? width - right - 4 : left + 4
        let py = atTop ? top + 13 : height - bottom - 5
        marks.append("<text x=\"\(format(px))\" y=\"\(format(py))\" text-anchor=\"\(atRight ? "end" : "start")\" "
            + "class=\"\(cssClass)\">\(MarkupText.escape(text))</text>")
    }

    /// A legend inside the plot at its top right: for each entry a short stroke of its class and its name.
    mutating func legend(_ entries: [(name: String, cssClass: String)]) {
        var x = width - right - 6
        for entry in entries.reversed() {
            x -= Double(entry.name.count) * 6.8
            marks.append("<text x=\"\(format(x))\" y=\"\(format(top + 14))\" class=\"tick\">\(MarkupText.escape(entry.name))</text>")
            x -= 22
            marks.append("<line x1=\"\(format(x))\" y1=\"\(format(top + 10))\" x2=\"\(format(x + 18))\" y2=\"\(format(top + 10))\" "
                + "class=\"\(entry.cssClass)\"/>")
            x -= 10
        }
    }

    /// Circles of radius `radius` at the points, each with a tooltip.
    mutating func points(_ points: [(Double, Double, String)], cssClass: String, radius: Double) {
        for (x, y, title) in points {
            marks.append("<circle cx=\"\(format(mapX(x)))\" cy=\"\(format(mapY(y)))\" r=\"\(format(radius))\" "
                + "class=\"\(cssClass)\"><title>\(MarkupText.escape(title))</title></circle>")
        }
    }

    /// A short text just above and right of the point (`x`, `y`): a step's number by its dot. It moves up, a line at
    /// a time, off the labels placed before it (10 px type: about 6 px a character), so none lies on another.
    mutating func label(_ text: String, x: Double, y: Double) {
        let left = mapX(x) + 5, width = 6 * Double(text.count)
        var baseline = mapY(y) - 5
        while labelBoxes.contains(where: { box in
            left < box.right && box.left < left + width && baseline - 10 < box.baseline && box.baseline - 10 < baseline
        }) && baseline > 12 {
            baseline -= 11
        }
        labelBoxes.append((left, left + width, baseline))
        marks.append("<text x=\"\(format(left))\" y=\"\(format(baseline))\" class=\"step\">"
            + "\(MarkupText.escape(text))</text>")
    }

    /// The SVG element.
    var svg: String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "width=\"\(Int(width))\" height=\"\(Int(height))\">\n" + marks.joined(separator: "\n") + "\n</svg>"
    }

    private func format(_ value: Double) -> String { DecimalText.fixed(value, fractionDigits: 1) }
}

/// Ticks for axes.
enum AxisTicks {
    /// Latency ticks on a log axis at 1, 2 and 5 × powers of ten of nanoseconds within the range; when the range
    /// spans more than two decades only the powers of ten are labelled, so labels never overlap.
    static func latency(_ range: ClosedRange<Double>) -> [(Double, String)] {
        let decades = portableLog2(range.upperBound / range.lowerBound) / portableLog2(10)
        var ticks: [(Double, String)] = []
        var decade = 1.0
        while decade <= range.upperBound {
            for step in [1.0, 2, 5] where range.contains(decade * step) {
                ticks.append((decade * step, step == 1 || decades <= 2 ? label(nanoseconds: decade * step) : ""))
            }
            decade *= 10
        }
        return ticks
    }

    /// A round number of nanoseconds in the largest unit that keeps it whole: 500ns, 20µs, 1ms, 2s.
    static func label(nanoseconds value: Double) -> String {
        for (unit, size) in [("s", 1e9), ("ms", 1e6), ("µs", 1e3)] where value >= size {
            return "\(Int((value / size).rounded()))\(unit)"
        }
        return "\(Int(value.rounded()))ns"
    }

    /// Ticks for counts from 0 to `maximum`: like ``linear(upTo:count:label:)`` but whole numbers only, so a
    /// plot whose tallest bar is 1 reads 0, 1 and not 0, 0, 1.
    static func counts(upTo maximum: Double, count: Int = 5) -> [(Double, String)] {
        linear(upTo: maximum, count: count) { "\(Int($0))" }.filter { $0.0 == $0.0.rounded() }
    }

    /// About `count` round ticks from 0 to `maximum`, labelled by `label`.
    static func linear(upTo maximum: Double, count: Int = 5, label: (Double) -> String) -> [(Double, String)] {
        guard maximum > 0 else { return [(0, label(0))] }
        let rough = maximum / Double(count)
        var step = 1.0
        while step * 10 <= rough { step *= 10 }
        while step > rough { step /= 10 }
        step = [1.0, 2, 5, 10].map { $0 * step }.first { $0 >= rough } ?? step
        return stride(from: 0.0, through: maximum, by: step).map { ($0, label($0)) }
    }
}
