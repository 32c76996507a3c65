import Foundation
import HailCore
import HailFleet
import HailProtocol
import HailServer

/// `hail fleet`: many real rider and driver apps in one process against one server, each logging its events.
enum FleetCommand {
    static let usage = """
        usage: hail fleet --server URL --secret-file FILE --log DIR [--riders N] [--drivers N] [--seed N]
                          [--duration SECONDS] [--rides N] [--roads PATH.osm.pbf] [--speed KMH]
                          [--area LAT,LNG,LAT,LNG] [--prefix NAME] [--cancel-one-in N]

        Runs N rider apps (RiderModel, a durable cursor each) riding ride after ride and N driver apps (DriverModel,
        a durable outbox each, autopilot: accept, drive to the pickup, arrive, start, drive to the dropoff, end) in
        this one process, on HailNet's HTTP and WebSocket clients, and writes one JSON-lines event log per app
        (DIR/rider-N.jsonl, DIR/driver-N.jsonl, beside their .sqlite state): every REST call's outcome, stream
        state changes, offers with expiresAt, sent and acknowledged location batches with the trip of each fix,
        rider frames with the pin the screen shows and the position it shows, and each trip's fare and charged
        distance. docs/RELIABILITY.md ("A native load client") lists the events; scripts/faults/check.py reads them.
        Prints one JSON line with how the rides ended when it stops.

          --server URL        the server or balancer, such as http://127.0.0.1:8080
          --secret-file FILE  what mints the apps' tokens: the server's secret file (hail1 tokens), or a PEM
                              private key whose public key is in the server's --jwks (JWTs)
          --log DIR           where the event logs and the apps' state go (created; a fleet restarted on DIR
                              resumes its apps from their state and appends to their logs)
          --riders N          rider apps (default 4)
          --drivers N         driver apps (default 4)
          --seed N            draws start points, rides and cancels (default 1)
          --duration SECONDS  stop after this long (default: ride until stopped, or until --rides are done)
          --rides N           rides per rider, then stop (default 0: no limit)
          --roads FILE        drive along the roads of an .osm.pbf file (default: straight lines)
          --speed KMH         the cars' speed, at most 180 (default 150, the fault suite's)
          --area BOX          south-west and north-east corners of the rides' box (default Monaco's centre,
                              43.7340,7.4180,43.7440,7.4300)
          --prefix NAME       account ids are NAME-r-N and NAME-d-N (default fl)
          --cancel-one-in N   one ride in N is cancelled 1 to 25 s after its request (default 3; 0: none)
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: [
                "--server", "--secret-file", "--log", "--riders", "--drivers", "--seed", "--duration", "--rides",
                "--roads", "--speed", "--area", "--prefix", "--cancel-one-in",
            ], flags: [])
        let configuration = try configuration(args)
        let summary: FleetSummary
        do { summary = try await Fleet.run(configuration) } catch { throw UsageError.failed(error.description) }
        if let line = try? HailJSON.encodeString(summary) { say(line) }
    }

    /// The checked options as a fleet.
    static func configuration(_ args: Arguments) throws(UsageError) -> FleetConfiguration {
        guard let serverText = args["--server"] else { throw UsageError("--server is required") }
        guard let server = URL(string: serverText), server.scheme == "http" || server.scheme == "https",
            server.host != nil
        else { throw UsageError("--server must be an http(s) URL such as http://127.0.0.1:8080, not '\(serverText)'") }
        guard let secretFile = args["--secret-file"] else {
            throw UsageError("--secret-file is required: the server's secret file or a PEM private key")
        }
        let signer: TokenSigner
        do { signer = try TokenSigner.load(path: secretFile) } catch { throw UsageError(error.description) }
        guard let log = args["--log"], !log.isEmpty else { throw UsageError("--log DIR is required") }
        let riders = try args.integer("--riders", default: 4, in: 0...2_000)
        let drivers = try args.integer("--drivers", default: 4, in: 0...2_000)
        guard riders + drivers > 0 else { throw UsageError("--riders and --drivers are both 0: nothing to run") }
        var configuration = FleetConfiguration(
            server: server, riders: riders, drivers: drivers,
            seed: UInt64(try args.integer("--seed", default: 1, in: 0...Int.max)), logDirectory: log,
            token: { role, subject in
                signer.mint(role: role == "driver" ? .driver : .rider, subject: subject, now: Date(), lifetime: 86_400)
            })
        if args["--duration"] != nil {
            configuration.duration = TimeInterval(try args.integer("--duration", default: 0, in: 1...864_000))
        }
        configuration.ridesPerRider = try args.integer("--rides", default: 0, in: 0...1_000_000)
        configuration.cancelOneIn = try args.integer("--cancel-one-in", default: 3, in: 0...1_000)
        if let text = args["--speed"] {
            // Not up to the server's 200 km/h plausibility cap: a fix at the cap, its time sent to the millisecond,
            // can land over it and be dropped (acknowledged, never charged), which I8 would count as the server's.
            guard let value = Double(text), value > 0, value <= 180 else {
                throw UsageError("--speed must be a number of km/h above 0 and at most 180, not '\(text)'")
            }
            configuration.speed = value / 3.6
        }
        if let text = args["--area"] { configuration.area = try area(text) }
        if let prefix = args["--prefix"] {
            guard !prefix.isEmpty, prefix.count <= 64, prefix.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
            else { throw UsageError("--prefix must be 1 to 64 letters, digits or dashes, not '\(prefix)'") }
            configuration.prefix = prefix
        }
        if let roads = args["--roads"] {
            guard FileManager.default.isReadableFile(atPath: roads) else {
                throw UsageError("--roads: there is no readable file '\(roads)' (an .osm.pbf)")
            }
            do { configuration.routes = try FleetRoutes.roads(pbfPath: roads) } catch {
                throw UsageError.failed(error.description)
            }
        }
        return configuration
    }

    private static func area(_ text: String) throws(UsageError) -> FleetArea {
        let numbers = text.split(separator: ",").compactMap { Double($0) }
        guard numbers.count == 4 else {
            throw UsageError("--area must be LAT,LNG,LAT,LNG (south-west, then north-east), not '\(text)'")
        }
        let southWest = Coordinate(lat: numbers[0], lng: numbers[1])
        let northEast = Coordinate(lat: numbers[2], lng: numbers[3])
        if let problem = southWest.validationProblem ?? northEast.validationProblem {
            throw UsageError("--area: \(problem)")
        }
        guard southWest.lat < northEast.lat, southWest.lng < northEast.lng else {
            throw UsageError("--area: the first corner must be south-west of the second, not '\(text)'")
        }
        return FleetArea(southWest: southWest, northEast: northEast)
    }
}
