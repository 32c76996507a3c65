import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Testing

/// `POST /v1/telemetry` and the design's numbers it feeds, and the refused proposals, through `HailAPI`.
@Suite("POST /v1/telemetry and the design's numbers")
struct TelemetryEndpointTests {
    static let session = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    static let monaco = Coordinate(lat: 43.7384, lng: 7.4246)

    static func harness() async -> ServerHarness {
        var configuration = ServerConfiguration()
        configuration.flags = .text(
            #"{"regions": [{"name": "monaco", "south": 43.72, "west": 7.40, "north": 43.76, "east": 7.44}]}"#)
        return await ServerHarness(configuration: configuration)
    }

    /// Ten minutes of a driver's phone sampled every minute on battery, losing 1/512 of a charge a minute (exact in
    /// binary), degraded for the last five minutes.
    static func tenMinutes(from start: Date) -> [DeviceSample] {
        (0...10).map { minute in
            DeviceSample(
                at: start.addingTimeInterval(Double(minute) * 60), batteryLevel: 0.75 - Double(minute) / 512,
                batteryState: .unplugged, thermalState: minute >= 5 ? .serious : .nominal, lowPower: false,
                active: true,
                degraded: minute >= 5)
        }
    }

    static func body(
        _ samples: [DeviceSample], starts: Bool = true, crashed: Bool = false, device: String = "iPhone13,2"
    )
        throws -> Data
    {
        try HailJSON.encode(
            TelemetryBatch(
                sessionID: session, startsSession: starts, previousSessionCrashed: crashed, appVersion: "1.4.0",
                deviceModel: device, samples: samples))
    }

    @Test func aBatchBecomesSessionsBatteryDrainAndDegradedTimeSegmentedByVersionDeviceAndRegion() async throws {
        let h = await Self.harness()
        await h.onlineDriver("driver-1", at: Self.monaco)
        let driver = h.token(.driver, "driver-1")
        let first = await h.call(
            "POST", "/v1/telemetry", token: driver, body: try Self.body(Self.tenMinutes(from: h.now), crashed: true),
            headers: ["X-Hail-Client": "hail-driver/1.4.0 (iPhone13,2)"])
        #expect(first.status == 204)
        let registry = h.services.metrics.registry
        let segment: KeyValuePairs<String, String> = [
            "role": "driver", "version": "1.4.0", "device": "iPhone13,2", "region": "monaco",
        ]
        #expect(registry.value("hail_sessions_total", labels: segment) == 1)
        #expect(registry.value("hail_session_crashes_total", labels: segment) == 1)
        #expect(registry.value("hail_app_active_seconds_total", labels: segment) == 600)
        #expect(
            registry.value(
                "hail_degraded_seconds_total", labels: ["version": "1.4.0", "device": "iPhone13,2", "region": "monaco"])
                == 300)
        #expect(registry.value("hail_battery_drained_percent_total", labels: segment) == 1.953125)
        #expect(registry.value("hail_battery_active_seconds_total", labels: segment) == 600)
        // 1.95 points in a sixth of an hour: 11.7 %/h, in the 8-12 bucket.
        let text = registry.render()
        #expect(text.contains(#"hail_battery_drain_percent_per_hour_bucket{device="iPhone13,2",le="8"} 0"#))
        #expect(text.contains(#"hail_battery_drain_percent_per_hour_bucket{device="iPhone13,2",le="12"} 1"#))

        // The next batch carries on the session: no session counted, the interval since the last sample read.
        let later = Self.tenMinutes(from: h.now.addingTimeInterval(600))
        let next = await h.call(
            "POST", "/v1/telemetry", token: driver, body: try Self.body(later, starts: false))
        #expect(next.status == 204)
        #expect(registry.value("hail_sessions_total", labels: segment) == 1)
        #expect(registry.value("hail_app_active_seconds_total", labels: segment) == 1200)
    }

    @Test func aChargingPhoneOrAGapSaysNothingOfTheDrain() async throws {
        let h = await Self.harness()
        var samples = Self.tenMinutes(from: h.now)
        for index in samples.indices where index % 2 == 1 { samples[index].batteryState = .charging }
        // A two-hour gap (the app was suspended) is no interval at all.
        var afterAGap = samples[10]
        afterAGap.at = afterAGap.at.addingTimeInterval(7200)
        samples.append(afterAGap)
        let response = await h.call(
            "POST", "/v1/telemetry", token: h.token(.rider, "rider-1"), body: try Self.body(samples))
        #expect(response.status == 204)
        let segment: KeyValuePairs<String, String> = [
            "role": "rider", "version": "1.4.0", "device": "iPhone13,2", "region": "unknown",
        ]
        #expect(h.services.metrics.registry.value("hail_app_active_seconds_total", labels: segment) == 600)
        #expect(h.services.metrics.registry.value("hail_battery_active_seconds_total", labels: segment) == 0)
        #expect(
            h.services.metrics.registry.observationCount(
                "hail_battery_drain_percent_per_hour", labels: ["device": "iPhone13,2"]) == 0)
    }

    @Test(arguments: [
        (
            #"{"sessionID": "x", "startsSession": false, "previousSessionCrashed": false, "appVersion": "1", "deviceModel": "d", "samples": []}"#,
            "sessionID"
        ),
        (
            #"{"sessionID": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "startsSession": true, "appVersion": "1", "deviceModel": "d", "samples": []}"#,
            "previousSessionCrashed"
        ),
        (
            #"{"sessionID": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "startsSession": true, "previousSessionCrashed": false, "appVersion": "1.4.0\u00e9", "deviceModel": "d", "samples": []}"#,
            "appVersion"
        ),
        (
            #"{"sessionID": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "startsSession": false, "previousSessionCrashed": false, "appVersion": "1", "deviceModel": "d", "samples": []}"#,
            "samples"
        ),
        (
            #"{"sessionID": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "startsSession": false, "previousSessionCrashed": false, "appVersion": "1", "deviceModel": "d", "samples": [{"at": "2026-12-02T12:40:00.000Z", "batteryLevel": 1.5, "batteryState": "unplugged", "thermalState": "nominal", "lowPower": false, "active": true, "degraded": false}]}"#,
            "samples[0].batteryLevel"
        ),
        (
            #"{"sessionID": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "startsSession": false, "previousSessionCrashed": false, "appVersion": "1", "deviceModel": "d", "samples": [{"at": "2026-12-02T12:40:00.000Z", "batteryState": "unplugged", "thermalState": "warm", "lowPower": false, "active": true, "degraded": false}]}"#,
            "samples[0].thermalState"
        ),
        (
            #"{"sessionID": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "startsSession": false, "previousSessionCrashed": false, "appVersion": "", "deviceModel": "d", "samples": []}"#,
            "appVersion"
        ),
    ])
    func aBadBatchIsA400NamingTheFieldAndCountsNothing(_ body: String, _ field: String) async throws {
        let h = await Self.harness()
        let response = await h.call("POST", "/v1/telemetry", token: h.token(.rider, "rider-1"), json: body)
        #expect(response.status == 400)
        #expect(h.error(from: response)?.field == field)
        #expect(!h.services.metrics.registry.render().contains("hail_sessions_total{"))
    }

    @Test func aTokenSendingFasterThanItsRateGets429WithRetryAfter() async throws {
        let h = await Self.harness()
        let rider = h.token(.rider, "rider-1")
        var statuses: [Int] = []
        for minute in 0..<11 {
            let sample = DeviceSample(
                at: h.now.addingTimeInterval(Double(minute)), batteryLevel: nil, batteryState: .unknown,
                thermalState: .nominal, lowPower: false, active: false, degraded: false)
            statuses.append(
                await h.call("POST", "/v1/telemetry", token: rider, body: try Self.body([sample], starts: false)).status
            )
        }
        #expect(statuses == Array(repeating: 204, count: 10) + [429])
        let refused = await h.call(
            "POST", "/v1/telemetry", token: rider, body: try Self.body(Self.tenMinutes(from: h.now), starts: false))
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "60")
        #expect(
            h.error(from: refused)?.message
                == "too many telemetry batches with this token (limit 1/min, burst 10); retry after 60 s")
        // Another rider has a bucket of their own; a minute later the first has one batch again.
        #expect(
            await h.call(
                "POST", "/v1/telemetry", token: h.token(.rider, "rider-2"), body: try Self.body([], starts: false)
            )
            .status == 400)
        h.advance(seconds: 60)
        #expect(
            await h.call(
                "POST", "/v1/telemetry", token: rider, body: try Self.body(Self.tenMinutes(from: h.now), starts: false)
            ).status == 204)
        #expect(
            h.services.metrics.registry.value("hail_rate_limited_total", labels: ["limit": "telemetryPerToken"]) == 2)
    }

    @Test func refusedProposalsAreCountedByKindReasonAndSegment() async throws {
        let h = await Self.harness()
        let client = ["X-Hail-Client": "hail-rider/1.4.0 (iPhone15,2)"]
        let rider = h.token(.rider, "rider-1")
        let created = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString,
            headers: client)
        #expect(created.status == 200 || created.status == 201)
        // A second request while one is active, another rider's cancel, and an accept with no offer.
        let again = await h.call(
            "POST", "/v1/trips", token: rider, json: ServerHarness.requestBody(), key: UUID().uuidString,
            headers: client)
        #expect(again.status == 409)
        let foreign = await h.call(
            "POST", "/v1/trips/trip-1/cancel", token: h.token(.rider, "rider-2"), json: "{}", key: UUID().uuidString,
            headers: client)
        #expect(foreign.status == 403)
        let accept = await h.call(
            "POST", "/v1/trips/trip-1/accept", token: h.token(.driver, "driver-9"), key: UUID().uuidString,
            headers: ["X-Hail-Client": "hail-driver/2.0.0 (iPhone13,2)"])
        #expect(accept.status == 409)
        // A driver token on a rider's route is no proposal: it never reached the trip.
        #expect(
            await h.call("POST", "/v1/trips", token: h.token(.driver, "d"), json: "{}", key: UUID().uuidString).status
                == 403)
        let registry = h.services.metrics.registry
        func refused(_ kind: String, _ reason: String, _ version: String, _ device: String) -> Double {
            registry.value(
                "hail_proposals_refused_total",
                labels: ["kind": kind, "reason": reason, "version": version, "device": device, "region": "monaco"])
        }
        #expect(refused("request", "invalid_state", "1.4.0", "iPhone15,2") == 1)
        #expect(refused("cancel", "forbidden", "1.4.0", "iPhone15,2") == 1)
        #expect(refused("accept", "invalid_state", "2.0.0", "iPhone13,2") == 1)
        #expect(registry.render().components(separatedBy: "\nhail_proposals_refused_total{").count - 1 == 3)
    }
}

extension TelemetryEndpointTests {
    @Test func theSidePanelsNumbersAreTheSameCountsAddedUp() async throws {
        let h = await Self.harness()
        await h.onlineDriver("driver-1", at: Self.monaco)
        let driver = h.token(.driver, "driver-1")
        _ = await h.call("POST", "/v1/telemetry", token: driver, body: try Self.body(Self.tenMinutes(from: h.now)))
        // A second session, on a rider's phone, after a crash.
        _ = await h.call(
            "POST", "/v1/telemetry", token: h.token(.rider, "rider-1"),
            body: try Self.body(Self.tenMinutes(from: h.now), crashed: true, device: "iPhone15,2"))
        let stats = h.services.metrics.operability()
        #expect(stats.sessions == 2)
        #expect(stats.crashFreeSessions == 0.5)
        // The driver's 1.953125 points over 600 s on battery; the rider's battery does not count.
        #expect(stats.batteryPercentPerActiveHour == 1.953125 * 3600 / 600)
        #expect(stats.degradedShareOfOnlineTime == 0.5)
        #expect(stats.resyncs == 0 && stats.framesPerResync == nil)
        #expect(stats.flagCohorts == 0 && stats.flagsLastReadApplied)
        #expect(stats.flagsReadAt == ServerHarness.epoch)
    }
}

extension TelemetryEndpointTests {
    @Test func samplesOutOfOrderAreReadInTimeOrder() async throws {
        let h = await Self.harness()
        let response = await h.call(
            "POST", "/v1/telemetry", token: h.token(.driver, "driver-1"),
            body: try Self.body(Self.tenMinutes(from: h.now).reversed()))
        #expect(response.status == 204)
        let segment: KeyValuePairs<String, String> = [
            "role": "driver", "version": "1.4.0", "device": "iPhone13,2", "region": "unknown",
        ]
        #expect(h.services.metrics.registry.value("hail_app_active_seconds_total", labels: segment) == 600)
        #expect(h.services.metrics.registry.value("hail_battery_drained_percent_total", labels: segment) == 1.953125)
    }
}
