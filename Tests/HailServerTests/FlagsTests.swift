import Foundation
import HailCore
import HailProtocol
import HailServer
import Testing

/// The flags file as pure values: its JSON with lines, the checks naming line and field, cohort matching, regions.
@Suite("Flags per cohort: parsing, checks and matching")
struct FlagsTests {
    static let providers = ["graph", "straight-line"]

    static func parse(_ text: String, providers: [String] = providers) throws(FlagsFileError) -> Flags {
        try Flags.parse(Array(text.utf8), path: "flags.json", providers: providers, routeProvider: providers[0])
    }

    static func problems(_ text: String, providers: [String] = providers) -> [String] {
        do {
            _ = try parse(text, providers: providers)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    static let example: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/hail-flags.example.json")

    static let monaco = Coordinate(lat: 43.7384, lng: 7.4246)
    static let nice = Coordinate(lat: 43.7034, lng: 7.2663)
    static let paris = Coordinate(lat: 48.8566, lng: 2.3522)

    // MARK: The JSON reader

    @Test func theReaderKeepsTheLineOfEveryValueAndKey() throws {
        let json = try FlagsJSON.parse(
            Array("{\n  \"a\": [1,\n    \"x\\ny\\u00e9\\ud83d\\ude95\"],\n\n  \"b\": null\n}".utf8))
        guard case .object(let members) = json.value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "b"])
        #expect(members.map(\.line) == [2, 5])
        guard case .array(let items) = members[0].value.value else { Issue.record("not an array"); return }
        #expect(items.map(\.line) == [2, 3])
        #expect(items[0].value == .number(1))
        #expect(items[1].value == .string("x\nyé🚕"))
        #expect(members[1].value.value == .null)
    }

    @Test(arguments: [
        ("{\"a\": 1,\n\"a\": 2}", "line 2: the key \"a\" appears twice"),
        ("{\"a\": 1,}", "line 1: expected a quoted key"),
        ("{\"a\": tru}", "line 1: unexpected text where a value should be (did you mean true?)"),
        ("{\n\n\"a\": \"open\n\"}", "line 3: a string runs past the end of its line"),
        ("{\"a\": 01}", "line 1: expected ',' or '}' in an object"),
        ("{\"a\": 1} x", "line 1: unexpected text after the JSON value"),
        ("", "line 1: the file ends where a value should be"),
        ("{\"a\": \"\\q\"}", "line 1: unknown escape '\\q' in a string"),
    ])
    func syntaxProblemsNameTheirLine(_ text: String, _ expected: String) {
        #expect(Self.problems(text) == [expected])
    }

    // MARK: Checks

    @Test func theExampleFileInDeployIsValid() throws {
        let flags = try FlagsStore.read(
            .file(Self.example.path), providers: Self.providers, routeProvider: "graph")
        #expect(flags.regions.names == ["monaco", "nice"])
        #expect(flags.cohorts.map(\.name) == ["internal", "monaco-stream-10", "cool-iphone12", "beta-straight-line"])
        #expect(flags.defaults.liveStream == LiveStreamSetting(mode: .poll, pollIntervalSeconds: 4))
    }

    @Test func everyProblemIsReportedWithItsLineAndField() {
        let text = """
            {
              "regions": [
                {"name": "monaco", "south": 43.75, "west": 7.40, "north": 43.72, "east": 7.44},
                {"name": "nice", "south": 43.64, "west": 7.18, "north": 43.76, "east": 7.33, "up": 1}
              ],
              "defaults": {"liveStream": {"mode": "stream", "pollIntervalSeconds": 0}},
              "cohorts": [
                {"name": "a", "match": {"role": "admin"}, "flags": {"etaSource": "crow"}},
                {"name": "b c", "match": {"region": "paris"}, "flags": {"routeProvider": "teleport"}},
                {"name": "a", "match": {"percent": 150}, "flags": {}},
                {"match": {}, "flags": {"locationPolicyCap": {"finestAccuracy": "best"}}},
                {"name": "d", "match": {"device": []}, "flags": {"liveStream": "poll"}}
              ],
              "extra": true
            }
            """
        #expect(
            Self.problems(text) == [
                "line 14: extra: is not a setting here (expected description, regions, defaults, cohorts)",
                "line 3: regions[0].north: must be north of south (43.75)",
                "line 4: regions[1].up: is not a setting here (expected name, south, west, north, east)",
                "line 6: defaults.liveStream.pollIntervalSeconds: must be between 1 and 300",
                "line 8: cohorts[0].match.role: must be rider or driver, not \"admin\"",
                "line 8: cohorts[0].flags.etaSource: must be one of roadGraph, straightLine, not \"crow\"",
                "line 9: cohorts[1].name: must be 1 to 32 letters, digits, '-' or '_', not \"b c\"",
                "line 9: cohorts[1].match.region: there is no region \"paris\" (defined: nice)",
                "line 9: cohorts[1].flags.routeProvider: must be one of graph, straight-line, not \"teleport\"",
                "line 10: cohorts[2].match.percent: must be between 0 and 100",
                "line 11: cohorts[3].name: is required",
                "line 11: cohorts[3].flags.locationPolicyCap.minimumDistanceFilterMeters: is required",
                "line 12: cohorts[4].match.device: must be a string or a non-empty array of strings, not an array",
                "line 12: cohorts[4].flags.liveStream: must be an object, not a string",
            ])
    }

    @Test func aGraphProviderWithoutRoadsSaysWhatItNeeds() {
        #expect(
            Self.problems(#"{"defaults": {"routeProvider": "graph"}}"#, providers: ["straight-line"]) == [
                "line 1: defaults.routeProvider: must be one of straight-line, not \"graph\" (graph needs hail server --roads)"
            ])
    }

    @Test func twoCohortsWithOneNameAreRefused() {
        let text = #"{"cohorts": [{"name": "x", "match": {}, "flags": {}},\#n{"name": "x", "match": {}, "flags": {}}]}"#
        #expect(Self.problems(text) == [#"line 2: cohorts[1].name: the name "x" is used by an earlier cohort"#])
    }

    @Test func aMissingOrUnreadableFileSaysSo() {
        #expect(throws: FlagsFileError.self) {
            _ = try FlagsStore.read(.file("/nonexistent/flags.json"), providers: Self.providers, routeProvider: "graph")
        }
        do {
            _ = try FlagsStore.read(.file("/nonexistent/flags.json"), providers: Self.providers, routeProvider: "graph")
        } catch {
            #expect(error.description == "flags file /nonexistent/flags.json: there is no such file")
        }
    }

    // MARK: Matching

    @Test func aCallersFlagsAreTheDefaultsWithEveryMatchingCohortAppliedInOrder() throws {
        let flags = try FlagsStore.read(.file(Self.example.path), providers: Self.providers, routeProvider: "graph")
        let hot = ClientInfo(app: "hail-driver", version: "1.4.0", deviceModel: "iPhone13,2")
        let driver = flags.config(for: .driver("d-1", client: hot, at: Self.nice))
        #expect(
            driver
                == ClientConfig(
                    role: .driver, cohorts: ["cool-iphone12"], region: "nice",
                    locationPolicyCap: LocationPolicyCap(
                        finestAccuracy: .nearestTenMeters, minimumDistanceFilterMeters: 20),
                    routeProvider: "graph"))
        // A beta rider in Monaco: straight lines, and polling (no share of Monaco's riders drawn for rider-2).
        let beta = ClientInfo(app: "hail-rider", version: "1.5.0-beta.3", deviceModel: "iPhone15,2")
        #expect(
            flags.config(for: .rider("rider-2", client: beta, at: Self.monaco))
                == ClientConfig(
                    role: .rider, cohorts: ["beta-straight-line"], region: "monaco",
                    liveStream: LiveStreamSetting(mode: .poll, pollIntervalSeconds: 4), etaSource: .straightLine,
                    routeProvider: "straight-line"))
        // rider-4 is in the tenth of Monaco drawn to stream; the same rider in Paris is in no region, and polls.
        let stable = ClientInfo(app: "hail-rider", version: "1.4.0")
        #expect(flags.resolve(.rider("rider-4", client: stable, at: Self.monaco)).cohorts == ["monaco-stream-10"])
        #expect(flags.resolve(.rider("rider-4", client: stable, at: Self.monaco)).values.liveStream.mode == .stream)
        let paris = flags.resolve(.rider("rider-4", client: stable, at: Self.paris))
        #expect(paris.cohorts == [] && paris.region == nil && paris.values.liveStream.mode == .poll)
        // An internal build streams anywhere.
        let internalBuild = ClientInfo(app: "hail-rider", version: "1.6.0-internal.7")
        #expect(flags.resolve(.rider("rider-2", client: internalBuild, at: nil)).values.liveStream.mode == .stream)
    }

    @Test func aPercentTakesTheSameStableShareAndGrowsWithoutDroppingAnyone() throws {
        func members(_ percent: Int) throws -> Set<String> {
            let flags = try Self.parse(
                #"{"cohorts": [{"name": "monaco-stream-10", "match": {"percent": \#(percent)}, "flags": {"etaSource": "straightLine"}}]}"#
            )
            return Set(
                (0..<1000).map { "rider-\($0)" }.filter {
                    flags.resolve(.rider($0, client: nil, at: nil)).values.etaSource == .straightLine
                })
        }
        let tenth = try members(10)
        let half = try members(50)
        // FNV-1a of "monaco-stream-10", a zero byte and the subject, modulo 10,000, in hundredths: worked out
        // independently of the code under test.
        #expect(tenth.count == 111)
        #expect(half.count == 504)
        #expect(tenth.isSubset(of: half))
        #expect(tenth.contains("rider-4") && !tenth.contains("rider-1"))
        #expect(try members(0).isEmpty)
        #expect(try members(100).count == 1000)
    }

    @Test func aMissingPartOfTheClientMatchesOnlyAStar() throws {
        let flags = try Self.parse(
            """
            {"cohorts": [
              {"name": "any-version", "match": {"version": "*"}, "flags": {"etaSource": "straightLine"}},
              {"name": "some-version", "match": {"version": "?*"}, "flags": {"routeProvider": "straight-line"}}
            ]}
            """)
        let anonymous = flags.resolve(.rider("r", client: nil, at: nil))
        #expect(anonymous.cohorts == ["any-version"])
        let versioned = flags.resolve(.rider("r", client: ClientInfo(app: "hail-rider", version: "?1"), at: nil))
        #expect(versioned.cohorts == ["any-version", "some-version"])
    }

    @Test func aLaterCohortLiftsACapAnEarlierOneSet() throws {
        let flags = try Self.parse(
            """
            {"cohorts": [
              {"name": "all", "match": {"role": "driver"},
               "flags": {"locationPolicyCap": {"finestAccuracy": "hundredMeters", "minimumDistanceFilterMeters": 50}}},
              {"name": "fleet-x", "match": {"app": "fleet-x"}, "flags": {"locationPolicyCap": null}}
            ]}
            """)
        #expect(
            flags.resolve(.driver("d", client: ClientInfo(app: "hail-driver"), at: nil)).values.locationPolicyCap != nil
        )
        #expect(
            flags.resolve(.driver("d", client: ClientInfo(app: "fleet-x"), at: nil)).values.locationPolicyCap == nil)
        #expect(
            flags.resolve(.rider("r", client: ClientInfo(app: "hail-rider"), at: nil)).values.locationPolicyCap == nil)
    }

    @Test(arguments: [
        ("1.4.*", "1.4.0", true), ("1.4.*", "1.40", false), ("*-beta*", "1.5.0-beta.2", true),
        ("*-beta*", "1.5.0", false), ("iPhone13,*", "iPhone13,2", true), ("iPhone13,*", "iPhone14,2", false),
        ("hail-rider", "hail-rider", true), ("hail-rider", "hail-rider2", false), ("*", "", true),
        ("a*b*c", "abc", true), ("a*b*c", "aXbYc", true), ("a*b*c", "acb", false), ("ab*ba", "aba", false),
    ])
    func globPatterns(_ pattern: String, _ value: String, _ matches: Bool) {
        #expect(GlobPattern(pattern).matches(value) == matches)
    }

    @Test func theFirstRegionHoldingAPlaceNamesIt() {
        let map = RegionMap([
            .init(name: "port", south: 43.73, west: 7.42, north: 43.74, east: 7.43),
            .init(name: "monaco", south: 43.72, west: 7.40, north: 43.76, east: 7.44),
        ])
        #expect(map.region(containing: Coordinate(lat: 43.735, lng: 7.425)) == "port")
        #expect(map.region(containing: Coordinate(lat: 43.75, lng: 7.41)) == "monaco")
        // Edges belong to the box.
        #expect(map.region(containing: Coordinate(lat: 43.72, lng: 7.44)) == "monaco")
        #expect(map.region(containing: Coordinate(lat: 43.719_999, lng: 7.41)) == nil)
        #expect(map.region(containing: nil) == nil)
    }

    @Test func theRouteProviderShortcutAgreesWithTheFullResolution() throws {
        let flags = try FlagsStore.read(.file(Self.example.path), providers: Self.providers, routeProvider: "graph")
        for version in ["1.5.0-beta.1", "1.5.0", "1.6.0-internal.1", "0.9"] {
            for place in [Self.monaco, Self.nice, Self.paris] {
                let key = CohortKey.driver("d", client: ClientInfo(app: "hail-driver", version: version), at: place)
                #expect(flags.routeProvider(for: key) == flags.resolve(key).values.routeProvider)
            }
        }
    }
}
