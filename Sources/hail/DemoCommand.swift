import Foundation
import HailRoads
import HailServer
import HailSim

/// `hail demo`: the server on a local database with a simulated city driving on it, and the live fleet
/// map to watch it in a browser.
@MainActor
enum DemoCommand {
    static let usage = """
        usage: hail demo [--port 8080] [--drivers 30] [--riders 10] [--map FILE.osm.pbf] [--seed 1]
                 [--speed 1] [--network perfect|4g|3g|dead-zones|stalls|chaos|cellular] [APNs flags]
               hail demo --headless --duration S [--report FILE] [--drivers N] [--riders N] [--map FILE]
                 [--network PROFILE] [--warmup S] [APNs flags]

        Starts the Hail backend with its data in ./.hail (demo.db, demo.secret) and a simulated city on it:
        drivers roaming the roads and serving trips, riders requesting them every few seconds, all through
        the real rider and driver runtimes over HTTP and WebSockets. The map is Monaco
        (../shared/data/osm/monaco.osm.pbf) when present, else the generated city. Prints the console's
        URL with an operator token and a progress line every 10 s; runs until Ctrl-C. --speed 2 drives
        the cars twice as fast as the roads' speeds (still under the server's 200 km/h filter).
        --network puts every simulated app on that network (each with its own seeded faults); cellular is
        fitted to what Uber measured on its riders' phones over TCP (round trips, loss, retransmission waits).

        --headless runs the same city without the browser against a fresh throwaway database for
        --duration seconds, then prints the measured report (freshness p50/p99 of the car on each rider's
        screen, backward moves, trip events lost or doubled, trips) and writes it as JSON to --report
        (a FILE ending in .html: the report with its plots there, opening offline, and the JSON beside it).
        Headless, --riders defaults to a quarter of the drivers. --warmup S runs the city S seconds before
        measuring: a city starts empty, so in its first two minutes only the shortest trips can end (at the
        minimum fare); after a warm-up of a few minutes the report shows a city in its stride.

        Progress lines show drivers online, trips under way by state, trips ended, the fares seen and the
        freshness p99.

        Each simulated rider registers an APNs device token as it launches and a Live Activity push token for
        each trip it requests, as the iOS app does. With the APNs flags of `hail server` (--apns-key-file,
        --apns-key-id, --apns-team-id, --apns-topic, and --apns-host HOST:PORT --apns-ca-file PEM for a
        stand-in) the city's rides push their alerts and Live Activity updates there; without them nothing is
        pushed.
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: Set(
                [
                    "--port", "--drivers", "--riders", "--map", "--seed", "--speed", "--network", "--duration",
                    "--report", "--warmup",
                ] + ServerCommand.apnsOptions), flags: ["--headless"])
        let port = try args.integer("--port", default: 8080, in: 0...65535)
        let headless = args.has("--headless")
        var city = CityConfiguration()
        city.drivers = try args.integer("--drivers", default: 30, in: 0...5000)
        city.riders = try args.integer("--riders", default: headless ? max(1, city.drivers / 4) : 10, in: 0...5000)
        city.speedFactor = Double(try args.integer("--speed", default: 1, in: 1...2))
        city.seed = UInt64(try args.integer("--seed", default: 1, in: 0...Int.max))
        if let name = args["--network"] {
            guard let profile = NetworkProfile.named(name) else {
                throw UsageError(
                    "--network: unknown profile '\(name)'; choose one of "
                        + NetworkProfile.all.map(\.name).joined(separator: ", "))
            }
            city.network = profile
        }
        var pushes = ServerConfiguration()
        let pushLine = try ServerCommand.configureAPNs(&pushes, args)
        let (graph, mapName) = try loadMap(args["--map"])
        if let pushLine { say(pushLine) }
        if headless {
            guard args["--duration"] != nil else { throw UsageError("--headless needs --duration S (seconds)") }
            let duration = try args.integer("--duration", default: 120, in: 1...86_400)
            city.warmup = TimeInterval(try args.integer("--warmup", default: 0, in: 0...86_400))
            _ = try await SimRun(
                city: city, graph: graph, mapName: mapName, duration: TimeInterval(duration),
                reportPath: args["--report"], pushSender: pushes.pushSender
            ).run()
            return
        }
        for option in ["--duration", "--report", "--warmup"] where args[option] != nil {
            throw UsageError("\(option) is for --headless runs")
        }

        try? FileManager.default.createDirectory(atPath: ".hail", withIntermediateDirectories: true)
        var options = BackendServer.Options()
        options.port = port
        options.databasePath = ".hail/demo.db"
        do {
            options.secret = try ServerSecret.loadOrCreate(at: ".hail/demo.secret").secret
        } catch {
            throw UsageError(error.description)
        }
        options.log = nil
        // One graph for both: the server's ETAs, snapping and fares, and the simulated cars' routes.
        options.configuration.roads = .loaded(RoadNetwork(graph: graph))
        options.configuration.pushSender = pushes.pushSender
        // The simulated apps all come from loopback: per-address limits would throttle the whole city.
        options.configuration.rateLimits.requestsPerAddress = nil
        options.configuration.rateLimits.connectionsPerAddress = nil
        // The console's rider's-eye view and its faults to press: this server only, never `hail server`.
        let console = DemoConsole()
        options.configuration.demo = console
        city.pressableFaults = true
        let server: BackendServer
        do {
            server = try await BackendServer.start(options)
        } catch {
            throw UsageError.failed("the server could not start (is port \(port) taken? try --port 0): \(error)")
        }
        let base = "http://127.0.0.1:\(server.port)"
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret))
        let minter: City.TokenMinter = { role, subject in
            let now = Int64(Date().timeIntervalSince1970)
            return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 86_400, iat: now))
        }
        guard let url = URL(string: base) else { throw UsageError("bad server address \(base)") }
        let simulation = City(
            configuration: city, server: url, tokens: minter, graph: graph, clock: ContinuousClock(), origin: Date())
        let demoServer = DemoServer(first: server, options: options)
        console.attach(DemoCommandConsole(city: CityConsole(city: simulation), server: demoServer))
        say(
            """
            Hail is running at \(base) (data in ./.hail), with \(city.drivers) drivers and \(city.riders) riders on \(mapName).

            Console (operator):    \(base)/?access_token=\(minter(.operator, "operator-demo"))
            Metrics:               curl -H "Authorization: Bearer $(hail token --role operator --subject ops \
                                     --secret-file .hail/demo.secret)" \(base)/metrics

            Ctrl-C to stop.
            """)
        let cityTask = Task { await simulation.run() }
        let progress = Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(10)) } catch { return }
                say(simulation.measuredReport(map: mapName).progress)
            }
        }
        await demoServer.runUntilInterrupted()
        progress.cancel()
        // The server is gone: the simulated apps' goodbyes would only wait out their timeouts.
        cityTask.cancel()
        say(simulation.measuredReport(map: mapName).summary)
    }

    /// The road graph to drive on: `--map`, else Monaco when the shared data is there, else the generated city.
    static func loadMap(_ path: String?) throws(UsageError) -> (RoadGraph, String) {
        let chosen = path ?? SharedDataFile.path(SharedDataFile.monacoMap)
        guard let chosen else { return (GeneratedCity(seed: 1).graph, "the generated city") }
        do {
            let graph = RoadGraph(extract: try OSMPBFReader.read(contentsOf: URL(fileURLWithPath: chosen)))
            return (graph, (chosen as NSString).lastPathComponent)
        } catch {
            throw UsageError("--map: cannot read \(chosen): \(error)")
        }
    }
}
