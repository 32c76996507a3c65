import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Testing

/// `GET /v1/config` and the flags' reload, through `HailAPI` on a manual clock: per role, per cohort, with caching
/// headers, and a bad file that changes nothing.
@Suite("GET /v1/config and reloading the flags")
struct ConfigEndpointTests {
    static let monacoBox = #"{"name": "monaco", "south": 43.72, "west": 7.40, "north": 43.76, "east": 7.44}"#

    /// A harness on `file`'s flags (written first with `text`).
    static func harness(_ text: String, file: URL) async throws -> ServerHarness {
        try Data(text.utf8).write(to: file)
        var configuration = ServerConfiguration()
        configuration.flags = .file(file.path)
        return await ServerHarness(configuration: configuration)
    }

    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hail-flags-\(UUID().uuidString).json")
    }

    static func config(_ response: APIResponse) throws -> ClientConfig {
        try HailJSON.decode(ClientConfig.self, from: response.body)
    }

    @Test func eachRoleGetsItsOwnFlagsWithAnETagThatMakesARepeatA304() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let h = try await Self.harness(
            """
            {"regions": [\(Self.monacoBox)],
             "cohorts": [
               {"name": "old-riders", "match": {"role": "rider", "version": "1.3.*"},
                "flags": {"liveStream": {"mode": "poll", "pollIntervalSeconds": 6}, "etaSource": "straightLine"}},
               {"name": "monaco-drivers", "match": {"role": "driver", "region": "monaco"},
                "flags": {"locationPolicyCap": {"finestAccuracy": "balanced", "minimumDistanceFilterMeters": 30}}}
             ]}
            """, file: file)
        let old = ["X-Hail-Client": "hail-rider/1.3.2 (iPhone12,1)"]
        let rider = await h.call("GET", "/v1/config", token: h.token(.rider, "rider-1"), headers: old)
        #expect(rider.status == 200)
        #expect(
            try Self.config(rider)
                == ClientConfig(
                    role: .rider, cohorts: ["old-riders"],
                    liveStream: LiveStreamSetting(mode: .poll, pollIntervalSeconds: 6),
                    etaSource: .straightLine, routeProvider: "straight-line"))
        #expect(rider.headers["Cache-Control"] == "private, no-cache")
        #expect(rider.headers["Vary"] == "Authorization, X-Hail-Client")
        let tag = try #require(rider.headers["ETag"])
        #expect(tag.count == 18 && tag.hasPrefix("\"") && tag.hasSuffix("\""))
        // The same answer is a 304 with no body; another tag, or another cohort's answer, is a 200.
        let again = await h.call(
            "GET", "/v1/config", token: h.token(.rider, "rider-1"), headers: old.merging(["If-None-Match": tag]) { $1 })
        #expect(again.status == 304 && again.body.isEmpty && again.headers["ETag"] == tag)
        let weak = await h.call(
            "GET", "/v1/config", token: h.token(.rider, "rider-1"),
            headers: old.merging(["If-None-Match": "\"x\", W/\(tag)"]) { $1 })
        #expect(weak.status == 304)
        let newer = await h.call(
            "GET", "/v1/config", token: h.token(.rider, "rider-1"),
            headers: ["X-Hail-Client": "hail-rider/1.4.0", "If-None-Match": tag])
        #expect(newer.status == 200)
        #expect(try Self.config(newer).liveStream == .stream)

        // A driver gets the driver's flags: a cap only where its position is in the region.
        let driver = await h.call("GET", "/v1/config", token: h.token(.driver, "driver-1"))
        #expect(try Self.config(driver) == ClientConfig(role: .driver, routeProvider: "straight-line"))
        await h.onlineDriver("driver-1", at: Coordinate(lat: 43.7384, lng: 7.4246))
        let placed = await h.call("GET", "/v1/config", token: h.token(.driver, "driver-1"))
        #expect(
            try Self.config(placed)
                == ClientConfig(
                    role: .driver, cohorts: ["monaco-drivers"], region: "monaco",
                    locationPolicyCap: LocationPolicyCap(finestAccuracy: .balanced, minimumDistanceFilterMeters: 30),
                    routeProvider: "straight-line"))
        #expect(
            h.services.metrics.registry.value(
                "hail_config_answers_total", labels: ["role": "rider", "live_stream": "poll"])
                == 3)
    }

    @Test func onlyRidersAndDriversMayAsk() async throws {
        let h = await ServerHarness()
        #expect(await h.call("GET", "/v1/config").status == 401)
        #expect(await h.call("GET", "/v1/config", token: h.token(.operator, "ops")).status == 403)
        #expect(await h.call("GET", "/v1/config", token: h.token(.share, "s", trip: "trip-1")).status == 403)
        // Without a flags file: streaming, the road ETA, the default provider (straight lines without roads).
        let plain = await h.call("GET", "/v1/config", token: h.token(.rider, "rider-1"))
        #expect(
            try Self.config(plain)
                == ClientConfig(
                    role: .rider, liveStream: .stream, etaSource: .roadGraph, routeProvider: "straight-line"))
    }

    @Test func aReloadAppliesAGoodFileAndKeepsTheFlagsInForceOverABadOne() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let h = try await Self.harness(#"{"defaults": {"liveStream": {"mode": "poll"}}}"#, file: file)
        let registry = h.services.metrics.registry
        let start = registry.value("hail_flags_last_reload_success_timestamp_seconds")
        #expect(start == ServerHarness.epoch.timeIntervalSince1970)
        func mode() async throws -> LiveStreamSetting.Mode? {
            try Self.config(await h.call("GET", "/v1/config", token: h.token(.rider, "rider-1"))).liveStream?.mode
        }
        #expect(try await mode() == .poll)

        try Data(#"{"defaults": {"liveStream": {"mode": "stream"}}, "cohorts": []}"#.utf8).write(to: file)
        h.advance(seconds: 30)
        try h.services.flags.reload()
        #expect(try await mode() == .stream)
        #expect(registry.value("hail_flags_reloads_total", labels: ["result": "applied"]) == 1)
        #expect(registry.value("hail_flags_last_reload_successful") == 1)
        #expect(registry.value("hail_flags_last_reload_success_timestamp_seconds") == start + 30)

        try Data("{\n  \"defaults\": {\"liveStream\": {\"mode\": \"off\"}}\n}".utf8).write(to: file)
        h.advance(seconds: 30)
        #expect {
            try h.services.flags.reload()
        } throws: { error in
            (error as? FlagsFileError)?.problems.map(\.description)
                == [#"line 2: defaults.liveStream.mode: must be one of stream, poll, not "off""#]
        }
        #expect(try await mode() == .stream)
        #expect(registry.value("hail_flags_reloads_total", labels: ["result": "rejected"]) == 1)
        #expect(registry.value("hail_flags_last_reload_successful") == 0)
        #expect(registry.value("hail_flags_last_reload_success_timestamp_seconds") == start + 30)

        try FileManager.default.removeItem(at: file)
        #expect(throws: FlagsFileError.self) { try h.services.flags.reload() }
        #expect(try await mode() == .stream)
        #expect(registry.value("hail_flags_reloads_total", labels: ["result": "rejected"]) == 2)
    }

    @Test func aRouteProviderFlagReachesTheRoutingAtOnceAfterAReload() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{}".utf8).write(to: file)
        var configuration = ServerConfiguration()
        configuration.roads = .generatedCity(seed: 1)
        configuration.flags = .file(file.path)
        let h = await ServerHarness(configuration: configuration)
        let beta = CohortKey.driver("d", client: ClientInfo(app: "hail-driver", version: "1.5.0-beta.1"), at: nil)
        #expect(h.services.routing.provider(for: beta).name == "graph")
        try Data(
            #"{"cohorts": [{"name": "beta", "match": {"version": "*-beta*"}, "flags": {"routeProvider": "straight-line"}}]}"#
                .utf8
        ).write(to: file)
        try h.services.flags.reload()
        #expect(h.services.routing.provider(for: beta).name == "straight-line")
        #expect(h.services.routing.provider(for: nil).name == "graph")
    }
}
