import Foundation
import Testing

/// `hail sim --report report.html` as a person reads it: the page and the JSON beside it are written, and
/// headless Chromium (Selenium, `Tests/Browser/check_report.py`) opens the page from disk with nothing
/// fetched and finds every plot drawn. The screenshot is kept; the test prints where.
@Suite("The HTML report in a browser", .serialized)
struct ReportPageBrowserTests {
    @Test(
        .enabled(if: BrowserPagesTests.ready, "needs chromium, chromium-driver and python3-selenium (scripts/setup.sh)")
    )
    func theReportOpensOfflineWithItsPlots() async throws {
        guard FileManager.default.isExecutableFile(atPath: SimCommandTests.executable.path) else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hail-report-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let page = directory.appendingPathComponent("report.html")
        let (status, output) = try await SimCommandTests.run([
            "sim", "--scenario", "generated", "--duration", "12", "--report", page.path,
        ])
        #expect(status == 0, "\(output)")
        let json = directory.appendingPathComponent("report.json")
        #expect(output.contains("Report written to \(page.path) and \(json.path)."), "\(output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        #expect(report["drivers"] as? Int == 30)
        // The distribution adds up to the frames the percentiles were read from.
        let perSecond = try #require(report["freshnessPerSecond"] as? [Int])
        #expect(perSecond.count == 21)
        #expect(perSecond.reduce(0, +) == (report["freshnessSeconds"] as? [String: Any])?["samples"] as? Int)
        let html = try String(contentsOf: page, encoding: .utf8)
        // Offline: nothing to fetch, no script at all.
        #expect(!html.contains("src=") && !html.contains("href=") && !html.contains("<script"))

        let result = try await BrowserPagesTests.runScript(
            at: BrowserPagesTests.script.deletingLastPathComponent().appendingPathComponent("check_report.py"),
            ["--report", page.path, "--artefacts", directory.path])
        print("Report screenshot: \(directory.path)/report.png")
        let drawn = try #require(
            try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any], "\(result)")
        #expect(drawn["title"] as? String == "Hail report: 30 drivers on the generated city, perfect")
        #expect(
            drawn["svgs"] as? [String] == [
                "freshness-svg", "freshness-distribution-svg", "freshness-by-state-svg", "trips-svg", "sends-svg",
                "bytes-svg", "battery-svg",
            ])
        // Freshness: the budget line on both freshness plots; sends and bytes each against their budget bar.
        #expect(drawn["budgets"] as? Int == 2)
        #expect((drawn["bars"] as? Int ?? 0) >= 4)
        #expect(drawn["areas"] as? [String] == ["searching", "driverAssigned", "driverArrived", "onTrip"])
        #expect(drawn["fetched"] as? [String] == [])
        #expect((drawn["width"] as? Double ?? 0) > 600)
        #expect(FileManager.default.fileExists(atPath: drawn["screenshot"] as? String ?? ""))
    }
}
