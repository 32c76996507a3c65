import Foundation
import HailCore

/// The measured report as a page a person reads (`--report report.html`): the numbers of the JSON and
/// plots drawn here as inline SVG, so it opens offline with nothing fetched: the freshness of the car on
/// the riders' screens against the 5 s budget, freshness by trip state, trips by state over time with
/// backward moves and jumps marked on the same time line, and sends and bytes per driver-hour against
/// the shift budget.
public struct ReportPage: Sendable {
    /// The freshness budget: the car on the rider's map is at most 5 s behind.
    public static let freshnessBudget = 5.0
    /// The shift budget per driver-hour: 9,000 updates and about 450 KB per 10-hour shift.
    public static let sendsPerHourBudget = 900.0
    /// Bytes per driver-hour in that budget.
    public static let bytesPerHourBudget = 45_000.0

    /// The measured report.
    public var report: SimulationReport
    /// The time line taken while the city ran.
    public var timeline: [ReportSample]

    /// A page for `report` and its time line.
    public init(report: SimulationReport, timeline: [ReportSample]) {
        self.report = report
        self.timeline = timeline
    }

    /// The trip states plotted, in the order a trip goes through them, with their colours.
    static let states: [(name: String, label: String, colour: String)] = [
        ("searching", "searching", "#f5c542"), ("driverAssigned", "to pickup", "#4aa3ff"),
        ("driverArrived", "arrived", "#b26bff"), ("onTrip", "on trip", "#3ddc84"),
    ]

    /// The whole page.
    public var html: String {
        let title = "Hail report: \(report.drivers) drivers on \(report.map), \(report.network)"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Self.escape(title))</title>
            <style>
            body{font:14px system-ui,sans-serif;margin:24px;color:#1d2330;max-width:980px}
            h1{font-size:20px}h2{font-size:16px;margin-top:28px}
            svg{background:#fbfbfd;border:1px solid #e3e6ec;border-radius:6px}
            svg text{font:12px system-ui,sans-serif;fill:#333}
            pre{background:#f4f5f8;padding:10px;white-space:pre-wrap;font-size:12px}
            .plot{margin:8px 0 18px}
            </style></head><body>
            <h1>\(Self.escape(title))</h1>
            <p>\(Int(report.durationSeconds)) s measured\
            \(report.warmupSeconds > 0 ? " after a warm-up of \(Int(report.warmupSeconds)) s" : ""); \
            \(report.riders) riders; \(report.trips.requested) trips requested, \(report.trips.completed) completed.</p>
            <h2>Freshness of the car on the riders' screens</h2>
            <div class="plot" id="freshness">\(freshnessPlot)</div>
            <h2>How old the car on the screen was, frame by frame</h2>
            <div class="plot" id="freshness-distribution">\(freshnessDistributionPlot)</div>
            <h2>Freshness by trip state</h2>
            <div class="plot" id="freshness-by-state">\(freshnessByStatePlot)</div>
            <h2>Trips over time, with backward moves and jumps</h2>
            <div class="plot" id="trips-over-time">\(timelinePlot)</div>
            <h2>Sends and bytes per driver-hour against the shift budget</h2>
            <div class="plot" id="per-driver-hour">\(perDriverHourPlot)</div>
            <h2>Battery per driver-hour by location policy</h2>
            <div class="plot" id="battery-by-policy">\(batteryPlot)</div>
            <h2>Trip safety: injected against detected</h2>
            <div id="trip-safety">\(safetyTable)</div>
            <h2>Summary</h2>
            <pre>\(Self.escape(report.summary))</pre>
            </body></html>
            """
    }

    /// The trip-safety score as a table: per kind injected, detected, missed, open, time to detect; then the false
    /// alarms and the pickup check's false refusals. A line saying nothing was scored without one.
    var safetyTable: String {
        guard let safety = report.safety else { return "<p>No trip safety score in this run.</p>" }
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f s", $0) } ?? "-" }
        func row(_ name: String, _ detection: SafetyScore.Detection, target: String) -> String {
            "<tr><td>\(name)</td><td>\(detection.injected)</td><td>\(detection.detected)</td>"
                + "<td>\(detection.missed)</td><td>\(detection.open)</td>"
                + "<td>\(seconds(detection.secondsToDetect.p50))</td><td>\(seconds(detection.secondsToDetect.p99))</td>"
                + "<td>\(target)</td></tr>"
        }
        let trips = safety.falseAlarmTrips.isEmpty ? "" : "; trips " + safety.falseAlarmTrips.joined(separator: ", ")
        // A wrong turn is timed from the excursion its alert caught; a car that came back inside the corridor first
        // is also timed from its first exit, so the stricter reading is on the page too.
        let firstExit =
            safety.deviations.secondsFromFirstExit.map {
                "<p>Wrong turns timed from the first time the car left the corridor (a car that came back inside and "
                    + "left again included): p50 \(seconds($0.p50)), p99 \(seconds($0.p99)).</p>"
            } ?? ""
        return """
            <table><tr><th>kind</th><th>injected</th><th>detected</th><th>missed</th><th>open at the end</th>\
            <th>time to detect p50</th><th>p99</th><th>target</th></tr>
            \(row("wrong turn (from leaving the 100 m corridor)", safety.deviations, target: "100 %, p99 20 s"))
            \(row("long stop (from its 3 minutes)", safety.stops, target: "100 %, within 30 s"))
            </table>
            \(firstExit)
            <p>False alarms on the \(safety.tripsWithoutInjection) of \(safety.tripsUnderWay) trips without an \
            injection: \(safety.falseDeviationAlarms) route deviations, \(safety.falseStopAlarms) long stops \
            (target 0)\(Self.escape(trips)). Other alerts matching nothing injected: \(safety.unmatchedAlarms). \
            Pickup position check: \(safety.arrivedRefused) arrived and \(safety.startedRefused) started refused for \
            cars at the pickup (target 0).</p>
            """
    }

    /// Horizontal bars, one per `(label, value)`, against a dashed `limit` line when there is one.
    static func bars(
        _ rows: [(label: String, value: Double?, colour: String)], limit: Double?, limitLabel: String, unit: String,
        id: String
    ) -> String {
        let width = 640.0
        let left = 150.0
        let right = 130.0
        let row = 26.0
        let height = Double(rows.count) * row + (limit == nil ? 16 : 40)
        let largest = max(rows.compactMap(\.value).max() ?? 0, (limit ?? 0) * 1.2, 0.001)
        let scale = (width - left - right) / largest
        var parts: [String] = []
        for (index, entry) in rows.enumerated() {
            let y = 14 + Double(index) * row
            parts.append(
                ##"<text x="\##(left - 8)" y="\##(y + 13)" text-anchor="end">\##(escape(entry.label))</text>"##)
            guard let value = entry.value else {
                parts.append(##"<text x="\##(left + 4)" y="\##(y + 13)">no samples</text>"##)
                continue
            }
            let barWidth = max(1, value * scale)
            parts.append(
                ##"<rect class="bar" x="\##(left)" y="\##(y)" width="\##(format(barWidth))" height="18" fill="\##(entry.colour)"><title>\##(escape(entry.label)): \##(format(value)) \##(unit)</title></rect>"##
            )
            parts.append(##"<text x="\##(left + barWidth + 6)" y="\##(y + 13)">\##(format(value)) \##(unit)</text>"##)
        }
        if let limit {
            let x = left + limit * scale
            parts.append(
                ##"<line class="budget" x1="\##(format(x))" y1="6" x2="\##(format(x))" y2="\##(format(height - 22))" stroke="#d33" stroke-dasharray="5,4" stroke-width="2"/>"##
            )
            parts.append(
                ##"<text x="\##(format(x))" y="\##(format(height - 8))" text-anchor="middle" fill="#d33">\##(escape(limitLabel))</text>"##
            )
        }
        return
            ##"<svg id="\##(id)-svg" width="\##(Int(width))" height="\##(Int(height))" viewBox="0 0 \##(Int(width)) \##(Int(height))" role="img">"##
            + parts.joined() + "</svg>"
    }

    var freshnessPlot: String {
        let f = report.freshnessSeconds
        let tunnels = report.freshnessNearTunnelsSeconds
        return Self.bars(
            [
                ("median (p50)", f.p50, "#4aa3ff"), ("p99", f.p99, "#2c6fb8"), ("longest", f.max, "#1b3f66"),
                ("near tunnels p99", tunnels.p99, "#9aa4b2"),
            ], limit: Self.freshnessBudget, limitLabel: "budget 5 s", unit: "s", id: "freshness")
            + "<p>\(f.samples) frames measured; \(tunnels.samples) near tunnels.</p>"
    }

    /// The share of frames in each second of freshness, those past the 5 s budget in red.
    var freshnessDistributionPlot: String {
        let counts = report.freshnessPerSecond ?? []
        let total = counts.reduce(0, +)
        guard total > 0 else { return "<p>No frame was measured.</p>" }
        let rows = counts.enumerated().map { second, frames -> (label: String, value: Double?, colour: String) in
            let label = second == counts.count - 1 ? "\(second) s and over" : "\(second)-\(second + 1) s"
            let colour = Double(second) < Self.freshnessBudget ? "#4aa3ff" : "#e5534b"
            return (label, (Double(frames) * 1000 / Double(total)).rounded() / 10, colour)
        }
        let over = counts.enumerated().filter { Double($0.offset) >= Self.freshnessBudget }.map(\.element).reduce(0, +)
        return Self.bars(rows, limit: nil, limitLabel: "", unit: "% of frames", id: "freshness-distribution")
            + "<p>\(total) frames; \(over) of them (\(String(format: "%.1f", Double(over) * 100 / Double(total)))%)"
            + " over the 5 s budget, in red.</p>"
    }

    var freshnessByStatePlot: String {
        let rows = Self.states.flatMap { state -> [(label: String, value: Double?, colour: String)] in
            let values = report.freshnessByState[state.name]
            return [
                ("\(state.label) p50", values?.p50, state.colour), ("\(state.label) p99", values?.p99, state.colour),
            ]
        }
        return Self.bars(
            rows, limit: Self.freshnessBudget, limitLabel: "budget 5 s", unit: "s", id: "freshness-by-state")
    }

    var perDriverHourPlot: String {
        let hour = report.perDriverHour
        return Self.bars(
            [("sends", hour.sends, "#4aa3ff"), ("budget", Self.sendsPerHourBudget, "#d9dde5")], limit: nil,
            limitLabel: "", unit: "per hour", id: "sends")
            + Self.bars(
                [("kilobytes", hour.bytes / 1000, "#3ddc84"), ("budget", Self.bytesPerHourBudget / 1000, "#d9dde5")],
                limit: nil, limitLabel: "", unit: "KB per hour", id: "bytes")
            + "<p>The shift budget: 9,000 updates and about 450 KB per 10-hour shift.</p>"
    }

    var batteryPlot: String {
        let rows = (report.batteryPerDriverHour ?? []).map {
            (label: $0.policy, value: Optional($0.percentPerHour), colour: "#f08c00")
        }
        guard !rows.isEmpty else { return "<p>No driver-hours measured.</p>" }
        return Self.bars(rows, limit: nil, limitLabel: "", unit: "% per hour", id: "battery")
            + "<p>A modelled battery (12 Wh): the screen always, the location hardware by the accuracy asked for,"
            + " and the radio awake 5 s after each send. The figures compare policies; they are not a phone's.</p>"
    }

    /// Trips under way by state as stacked areas over the measured window, with a red tick wherever a
    /// backward move and an orange one wherever a jump over 50 m happened since the sample before.
    var timelinePlot: String {
        let width = 820.0
        let height = 260.0
        let left = 46.0
        let bottom = 40.0
        let top = 14.0
        guard timeline.count >= 2, let last = timeline.last else {
            return
                ##"<svg id="trips-svg" width="820" height="60"><text x="12" y="34">Too short a run for a time line.</text></svg>"##
        }
        let span = max(last.seconds, 1)
        let most = max(
            1, timeline.map { sample in Self.states.reduce(0) { $0 + (sample.tripsByState[$1.name] ?? 0) } }.max() ?? 1)
        func x(_ seconds: Double) -> Double { left + seconds / span * (width - left - 12) }
        func y(_ count: Double) -> Double { height - bottom - count / Double(most) * (height - bottom - top) }
        var parts: [String] = []
        var below = [Double](repeating: 0, count: timeline.count)
        for state in Self.states {
            let above = timeline.enumerated().map {
                below[$0.offset] + Double($0.element.tripsByState[state.name] ?? 0)
            }
            var points: [String] = []
            for (index, sample) in timeline.enumerated() {
                points.append("\(Self.format(x(sample.seconds))),\(Self.format(y(above[index])))")
            }
            for (index, sample) in timeline.enumerated().reversed() {
                points.append("\(Self.format(x(sample.seconds))),\(Self.format(y(below[index])))")
            }
            parts.append(
                ##"<polygon class="area" data-state="\##(state.name)" points="\##(points.joined(separator: " "))" fill="\##(state.colour)" fill-opacity="0.8"><title>\##(state.label)</title></polygon>"##
            )
            below = above
        }
        var marks = 0
        for (previous, sample) in zip(timeline, timeline.dropFirst()) {
            for (count, colour, kind) in [
                (sample.backwardMoves - previous.backwardMoves, "#d33", "backward moves"),
                (sample.jumpsOver50m - previous.jumpsOver50m, "#f08c00", "jumps over 50 m"),
            ] where count > 0 {
                marks += 1
                let at = Self.format(x(sample.seconds))
                parts.append(
                    ##"<line class="mark" x1="\##(at)" y1="\##(top)" x2="\##(at)" y2="\##(height - bottom)" stroke="\##(colour)" stroke-width="2"><title>\##(count) \##(kind) by \##(Int(sample.seconds)) s</title></line>"##
                )
            }
        }
        parts.append(
            ##"<line x1="\##(left)" y1="\##(height - bottom)" x2="\##(width - 12)" y2="\##(height - bottom)" stroke="#888"/>"##
        )
        parts.append(##"<line x1="\##(left)" y1="\##(top)" x2="\##(left)" y2="\##(height - bottom)" stroke="#888"/>"##)
        parts.append(##"<text x="\##(left - 6)" y="\##(top + 10)" text-anchor="end">\##(most)</text>"##)
        parts.append(##"<text x="\##(left - 6)" y="\##(height - bottom)" text-anchor="end">0</text>"##)
        parts.append(##"<text x="\##(left)" y="\##(height - bottom + 16)">0 s</text>"##)
        parts.append(
            ##"<text x="\##(width - 12)" y="\##(height - bottom + 16)" text-anchor="end">\##(Int(span)) s</text>"##)
        var legend = left
        for state in Self.states {
            parts.append(
                ##"<rect x="\##(legend)" y="\##(height - 14)" width="10" height="10" fill="\##(state.colour)"/>"##)
            parts.append(##"<text x="\##(legend + 14)" y="\##(height - 5)">\##(state.label)</text>"##)
            legend += 100
        }
        parts.append(
            ##"<rect x="\##(legend)" y="\##(height - 14)" width="3" height="10" fill="#d33"/><text x="\##(legend + 8)" y="\##(height - 5)">backward move</text>"##
        )
        parts.append(
            ##"<rect x="\##(legend + 120)" y="\##(height - 14)" width="3" height="10" fill="#f08c00"/><text x="\##(legend + 128)" y="\##(height - 5)">jump over 50 m</text>"##
        )
        return
            ##"<svg id="trips-svg" data-marks="\##(marks)" width="\##(Int(width))" height="\##(Int(height))" viewBox="0 0 \##(Int(width)) \##(Int(height))" role="img">"##
            + parts.joined() + "</svg>"
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
