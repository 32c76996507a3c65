import Foundation
import HailCore
import HailProcess
import HailProtocol
import Testing

@testable import HailServer

@Suite("Metrics: bounded labels, and promtool's verdict on the live /metrics")
struct MetricsBoundsTests {
    @Test("client labels: known apps, plausible versions and devices, the first ones seen; the rest is other")
    func clientLabels() {
        let bounds = ClientLabelBounds(maximumVersions: 2, maximumDevices: 1)
        func labels(_ header: String?) -> [String] {
            let c = bounds.labels(ClientInfo(headerValue: header))
            return [c.app, c.version, c.device]
        }
        #expect(labels(nil) == ["unknown", "unknown", "unknown"])
        #expect(labels("hail-rider/1.4.0 (iPhone15,2)") == ["hail-rider", "1.4.0", "iPhone15,2"])
        #expect(labels("hail-driver/2.0.0-beta.1") == ["hail-driver", "2.0.0-beta.1", "unknown"])
        // The caps are reached: a third version and a second device are folded, the admitted ones stay.
        #expect(labels("hail-rider/3.0 (iPad13,4)") == ["hail-rider", "other", "other"])
        #expect(labels("hail-rider/1.4.0 (iPhone15,2)") == ["hail-rider", "1.4.0", "iPhone15,2"])
        #expect(labels("curl/8.0") == ["other", "other", "unknown"])
        #expect(labels("hail-rider/1.4.0\"} 1\nevil (x\"y)") == ["hail-rider", "other", "other"])
        for bad in ["", "1.", ".1", "v1.0", "1.0-", "1.0-\u{1F600}", String(repeating: "1", count: 33)] {
            #expect(!ClientLabelBounds.looksLikeVersion(bad), "\(bad)")
        }
        for good in ["1", "1.4", "1.4.0", "10.2.3-rc.1", "1.0+build.7"] {
            #expect(ClientLabelBounds.looksLikeVersion(good), "\(good)")
        }
    }

    @Test("a client sending a new version on every request adds no series past the bound")
    func versionFloodIsBounded() async throws {
        let metrics = ServerMetrics(clientBounds: ClientLabelBounds(maximumVersions: 32, maximumDevices: 64))
        for index in 0..<500 {
            metrics.locationPoints(
                1, result: "accepted",
                client: ClientInfo(app: "hail-driver", version: "1.0.\(index)", deviceModel: "x\(index)"))
        }
        let series = metrics.registry.render().split(separator: "\n").filter {
            $0.hasPrefix("hail_location_updates_total{")
        }
        // 32 admitted versions with their own device, 32 more devices with version other, then one series for
        // everything else: 65, however long the flood goes on.
        #expect(series.count == 65)
        #expect(
            metrics.registry.value(
                "hail_location_updates_total",
                labels: ["result": "accepted", "app": "hail-driver", "version": "other", "device": "other"]) == 436)
    }

    @Test("segments: version, device and region together, the first ones seen; past the bound all three are other")
    func segmentsAreBounded() {
        let bounds = ClientLabelBounds(maximumSegments: 3)
        func segment(_ header: String?, _ region: String?) -> [String] {
            let s = bounds.segment(ClientInfo(headerValue: header), region: region)
            return [s.version, s.device, s.region]
        }
        #expect(segment("hail-rider/1.4.0 (iPhone15,2)", "monaco") == ["1.4.0", "iPhone15,2", "monaco"])
        #expect(segment(nil, nil) == ["unknown", "unknown", "unknown"])
        #expect(segment("hail-rider/1.4.0 (iPhone15,2)", "a b") == ["1.4.0", "iPhone15,2", "other"])
        // The bound is reached: a fourth combination is other in all three, the admitted ones stay.
        #expect(segment("hail-rider/1.5.0 (iPhone15,2)", "monaco") == ["other", "other", "other"])
        #expect(segment("hail-rider/1.4.0 (iPhone15,2)", "monaco") == ["1.4.0", "iPhone15,2", "monaco"])
    }

    @Test("a telemetry flood of new versions and devices adds no series past the segment bound")
    func telemetryFloodIsBounded() async throws {
        var configuration = ServerConfiguration()
        configuration.rateLimits.telemetryPerToken = nil
        let h = await ServerHarness(configuration: configuration)
        let sample = DeviceSample(
            at: h.now, batteryLevel: 0.5, batteryState: .unplugged, thermalState: .nominal, lowPower: false,
            active: true,
            degraded: false)
        for index in 0..<400 {
            let batch = TelemetryBatch(
                sessionID: UUID().uuidString.lowercased(), startsSession: true, previousSessionCrashed: false,
                appVersion: "1.0.\(index)", deviceModel: "Phone\(index),1", samples: [sample])
            #expect(
                await h.call(
                    "POST", "/v1/telemetry", token: h.token(.rider, "r\(index)"), body: try HailJSON.encode(batch)
                )
                .status == 204)
        }
        let series = h.services.metrics.registry.render().split(separator: "\n").filter {
            $0.hasPrefix("hail_sessions_total{")
        }
        // 32 admitted versions (the first 32 devices with them), then the version other with the next 32 devices:
        // 64 combinations, all under the 256 bound; everything after is one series, version and device other.
        #expect(series.count == 65)
        #expect(
            h.services.metrics.registry.value(
                "hail_sessions_total",
                labels: ["role": "rider", "version": "other", "device": "other", "region": "unknown"]) == 336)
    }

    @Test("promtool check metrics passes on the real server's /metrics after requests, a ride and a flood of clients")
    func promtoolChecksTheLiveMetrics() async throws {
        let promtool = try #require(
            ["/usr/bin/promtool", "/opt/homebrew/bin/promtool", "/usr/local/bin/promtool"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "promtool (Debian and Homebrew: prometheus) is installed by scripts/setup.sh")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-metrics-\(UUID().uuidString).db")
            .path
        let (h, server) = try await ServerHarness.loopback(databasePath: path)
        let rider = h.token(.rider, "rider-1")
        await h.onlineDriver("driver-1", at: Coordinate(lat: 43.7400, lng: 7.4280))
        _ = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString,
            headers: ["X-Hail-Client": "hail-rider/1.4.0 (iPhone15,2)"])
        // The design's numbers, before the flood takes every version's place: a driver's telemetry, the flags, and a
        // refused proposal.
        let sample = DeviceSample(
            at: h.now, batteryLevel: 0.8, batteryState: .unplugged, thermalState: .fair, lowPower: false, active: true,
            degraded: true)
        var later = sample
        later.at = h.now.addingTimeInterval(600)
        later.batteryLevel = 0.78
        let telemetry = TelemetryBatch(
            sessionID: UUID().uuidString.lowercased(), startsSession: true, previousSessionCrashed: true,
            appVersion: "1.4.0", deviceModel: "iPhone13,2", samples: [sample, later])
        #expect(
            await h.call(
                "POST", "/v1/telemetry", token: h.token(.driver, "driver-1"), body: try HailJSON.encode(telemetry)
            ).status == 204)
        #expect(await h.call("GET", "/v1/config", token: rider).status == 200)
        #expect(
            await h.call(
                "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString,
                headers: ["X-Hail-Client": "hail-rider/1.4.0 (iPhone15,2)"]
            ).status == 409)
        for index in 0..<50 {
            h.advance(seconds: 1)
            let point = LocationPoint(lat: 43.74, lng: 7.428, accuracy: 5, heading: 90, speed: 8, t: h.now)
            _ = await h.call(
                "POST", "/v1/drivers/me/locations", token: h.token(.driver, "driver-1"),
                body: try HailJSON.encode(LocationBatch(seq: Int64(2 + index), points: [point])),
                headers: ["X-Hail-Client": "evil-\(index)/9.\(index) (\(index)\")"])
        }
        _ = await h.call("TRACE", "/metrics")
        let scraped = await h.call("GET", "/metrics", token: h.token(.operator, "ops"))
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(scraped.status == 200)
        let text = String(decoding: scraped.body, as: UTF8.self)
        #expect(!text.contains("evil"))
        #expect(
            text.contains(#"hail_location_updates_total{result="accepted",app="other",version="9.0",device="other"} 1"#)
        )
        #expect(
            text.contains(#"hail_sessions_total{role="driver",version="1.4.0",device="iPhone13,2",region="unknown"} 1"#)
        )
        #expect(text.contains(#"hail_battery_drain_percent_per_hour_count{device="iPhone13,2"} 1"#))
        #expect(
            text.contains(#"hail_degraded_seconds_total{version="1.4.0",device="iPhone13,2",region="unknown"} 600"#))
        #expect(text.contains(#"hail_drivers_degraded{region="unknown"} 0"#))
        #expect(text.contains("hail_flags_last_reload_successful 1"))
        #expect(
            text.contains(
                #"hail_proposals_refused_total{kind="request",reason="invalid_state",version="1.4.0",device="iPhone15,2",region="unknown"} 1"#
            ))

        let input = Pipe()
        let output = Pipe()
        let child = try ChildProcess.start(
            promtool, ["check", "metrics"], standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: output.fileHandleForWriting.fileDescriptor)
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        try input.fileHandleForWriting.write(contentsOf: scraped.body)
        try input.fileHandleForWriting.close()
        let verdict = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(await child.waitForExit() == .exited(0), "\(verdict)")
        #expect(verdict == "")
    }
}
