import Foundation
import HailScale
import HailServer

/// `hail server`: the backend on its embedded default (SQLite in WAL mode, in-memory geo index, in-process bus).
enum ServerCommand {
    static let usage = """
        usage: hail server [--port 8080] [--host 127.0.0.1] [--db ./hail.db] [--secret-file ./hail.secret]
                           [--public-url http://localhost:8080] [--postgres URL] [--redis URL]
                           [--postgres-schema NAME] [--redis-prefix PREFIX]
                           [--roads PATH.osm.pbf | --roads generated] [--route-cohorts SPEC] [--quiet]

        Runs the Hail backend until interrupted (Ctrl-C or SIGTERM). Every acknowledged change is in the
        SQLite file before the answer leaves; restart on the same --db and nothing acknowledged is lost.

          --port         TCP port to listen on (0 picks a free one)          default 8080
          --host         address to bind; 0.0.0.0 for every interface        default 127.0.0.1
          --db           the SQLite database file, created when missing      default ./hail.db
          --secret-file  the token-signing secret, created when missing      default ./hail.secret
          --public-url   the base URL put in share links                     default http://localhost:PORT
          --postgres     trips, audit log, idempotency and history in PostgreSQL instead of --db
                         (postgresql://user@host:port/db); several nodes may share it
          --redis        geo index and per-trip pub/sub in Redis (redis://host:port), so a driver on one
                         node reaches a rider on another
          --postgres-schema  the PostgreSQL schema, created when missing        default public
          --redis-prefix     put before every Redis key and channel, so several deployments can
                         share one Redis (every node of one deployment uses the same)  default none
          --roads        the road network for ETAs, estimates, dispatch order, snapped positions and
                         fare distances: an OpenStreetMap .osm.pbf file, or `generated` for the
                         built-in test city; without it every estimate is a straight line
          --route-cohorts  the route provider per client cohort, e.g. `*=graph,beta=straight-line`;
                         a cohort is `app/version`, `app` or a pre-release label from X-Hail-Client
                         (providers: graph, straight-line)                  default: graph when --roads
          --quiet        no request log (one JSON line per request on stderr otherwise)
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: [
                "--port", "--host", "--db", "--secret-file", "--public-url", "--postgres", "--redis", "--roads",
                "--route-cohorts", "--postgres-schema", "--redis-prefix",
            ],
            flags: ["--quiet"])
        var options = BackendServer.Options()
        options.port = try args.integer("--port", default: 8080, in: 0...65535)
        options.host = args["--host"] ?? "127.0.0.1"
        options.databasePath = args["--db"] ?? "hail.db"
        let secretPath = args["--secret-file"] ?? "hail.secret"
        do {
            let (secret, created) = try ServerSecret.loadOrCreate(at: secretPath)
            options.secret = secret
            if created {
                say("Created a new token secret in \(secretPath) (keep it private; tokens are signed with it).")
            }
        } catch {
            throw UsageError(error.description)
        }
        if let url = args["--public-url"] {
            guard let parsed = URL(string: url), parsed.scheme?.hasPrefix("http") == true else {
                throw UsageError("--public-url must be an http(s) URL, not '\(url)'")
            }
            options.configuration.publicBaseURL = parsed
        }
        if args.has("--quiet") { options.log = nil }
        let roadsSummary = try configureRoutes(
            &options.configuration, roads: args["--roads"], cohorts: args["--route-cohorts"])
        let server: BackendServer
        var storage = "database \(options.databasePath)"
        do {
            if args["--postgres"] != nil || args["--redis"] != nil {
                let backends = try await ScaledBackends.open(
                    postgresURL: args["--postgres"], redisURL: args["--redis"], databasePath: options.databasePath,
                    postgresSchema: args["--postgres-schema"] ?? "public", redisPrefix: args["--redis-prefix"] ?? "")
                let services = await backends.services(
                    configuration: options.configuration,
                    tokens: TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret)), time: .live())
                server = try await BackendServer.start(services: services, options: options)
                storage = backends.summary
            } else {
                server = try await BackendServer.start(options)
            }
        } catch {
            throw UsageError("the server could not start: \(error)")
        }
        if args["--public-url"] == nil {
            // Share links point where this server really listens.
            say("Share links use http://localhost:\(server.port); pass --public-url for another address.")
        }
        say("Hail server listening on http://\(options.host):\(server.port)  (\(storage); \(roadsSummary))")
        say("Mint a token: hail token --role rider --subject rider-1 --secret-file \(secretPath)")
        await Signals.runUntilInterrupted(server)
    }
}

extension ServerCommand {
    /// Loads `--roads` once, before the server starts, and checks `--route-cohorts` against the providers
    /// that exist with it; returns a one-line summary for the start-up message.
    static func configureRoutes(_ configuration: inout ServerConfiguration, roads: String?, cohorts: String?)
        throws(UsageError) -> String
    {
        var network: RoadNetwork?
        if let roads {
            guard !roads.isEmpty else { throw UsageError("--roads needs an .osm.pbf file or `generated`") }
            guard roads == "generated" || FileManager.default.isReadableFile(atPath: roads) else {
                throw UsageError("--roads: there is no readable file '\(roads)' (an .osm.pbf, or `generated`)")
            }
            do {
                network = try RoadNetwork.load(roads == "generated" ? .generatedCity(seed: 1) : .file(roads))
            } catch {
                throw UsageError("--roads: could not read the road network in '\(roads)': \(error)")
            }
            configuration.roads = network.map { .loaded($0) } ?? .none
        }
        if let cohorts {
            let routing = ServerRouting(network: network, cohorts: cohorts)
            guard routing.problems.isEmpty else {
                let available = routing.selector.providers.keys.sorted().joined(separator: ", ")
                throw UsageError(
                    "--route-cohorts '\(cohorts)': \(routing.problems.joined(separator: "; ")) (providers: \(available)"
                        + (network == nil ? "; graph needs --roads)" : ")"))
            }
            configuration.routeCohorts = cohorts
        }
        guard let network else { return "straight-line estimates, no road network" }
        return "roads: \(network.graph.nodeCount) nodes, \(network.graph.edgeCount) edges"
    }
}

/// Stops the server cleanly on SIGINT and SIGTERM.
enum Signals {
    static func runUntilInterrupted(_ server: BackendServer) async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler {
                Task { await server.shutdown() }
            }
            source.resume()
        }
        do { try await server.run() } catch { FileHandle.standardError.write(Data("hail server: \(error)\n".utf8)) }
        for source in sources { source.cancel() }
        say("Hail server stopped.")
    }
}
