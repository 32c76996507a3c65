import Foundation
import HailProcess
import HailTesting
import Testing

/// `hail sim` and `hail demo --headless` as a user runs them: a child process, its output and its report.
@Suite("hail sim and hail demo --headless", .serialized)
struct SimCommandTests {
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("hail")
    }

    /// Runs `hail` with `arguments` to its end (killed after `deadline` seconds); returns status and output.
    static func run(_ arguments: [String], deadline: Double = 180) async throws -> (status: Int32, output: String) {
        let output = Pipe()
        let process = try ChildProcess.start(
            executable.path, arguments, standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) {
            if process.isRunning { process.send(SIGTERM) }
        }
        // Off the cooperative pool: the run lasts its whole scenario (`onItsOwnThread` says why).
        let text = try await onItsOwnThread {
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        // The exit status, or the signal's number when a signal ended it (what Foundation's `Process` reported).
        let status: Int32 =
            switch await process.waitForExit() {
            case .exited(let code): code
            case .signalled(let number): number
            }
        return (status, text)
    }

    @Test func aScenarioRunsHeadlessAndWritesTheMeasuredReport() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else { return }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("hail-sim-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let (status, output) = try await Self.run([
            "sim", "--scenario", "generated", "--duration", "20", "--report", report.path,
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Report written to \(report.path)."))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let freshness = try #require(json["freshnessSeconds"] as? [String: Any])
        #expect(freshness["p50"] != nil && freshness["p99"] != nil)
        let trips = try #require(json["trips"] as? [String: Any])
        for key in ["requested", "completed", "cancelled", "noDriversFound"] { #expect(trips[key] is Int, "\(key)") }
        #expect((trips["requested"] as? Int ?? 0) > 0)
        // What must hold on any machine, however loaded: the car never goes back, no trip event lost or doubled.
        #expect(json["backwardMoves"] as? Int == 0)
        #expect(json["tripEventsLost"] as? Int == 0)
        #expect(json["tripEventsDuplicated"] as? Int == 0)
        #expect(json["network"] as? String == "perfect")
        #expect(json["drivers"] as? Int == 30)
        #expect(json["jumpsOver50m"] is Int)
        #expect(json["snaps"] is Int)
        let overclaims = try #require(json["overclaims"] as? [String: Any])
        #expect(Set(overclaims.keys) == ["live", "updating", "noDelayedBanner", "etaWhileLocating"])
        #expect(json["underclaims"] is [String: Any])
        #expect(output.contains("overclaims "))
    }

    @Test(arguments: [
        (["sim"], "--scenario is required"),
        (
            ["sim", "--scenario", "atlantis"],
            "unknown scenario 'atlantis'; choose one of monaco-3g, monaco-4g, dead-zones, stalls, chaos, cellular, "
                + "generated"
        ),
        (["demo", "--headless"], "--headless needs --duration S (seconds)"),
        (
            ["demo", "--network", "5g"],
            "--network: unknown profile '5g'; choose one of perfect, 4g, 3g, dead-zones, stalls, chaos, cellular"
        ),
        (["demo", "--report", "x.json"], "--report is for --headless runs"),
    ])
    func mistakesAreNamed(arguments: [String], message: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else { return }
        let (status, output) = try await Self.run(arguments, deadline: 30)
        #expect(status == 64)
        #expect(output.contains(message), "\(output)")
    }
}
