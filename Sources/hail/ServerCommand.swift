import Foundation
import HailProtocol
import HailScale
import HailServer
import HailTime

/// `hail server`: the backend on its embedded default (SQLite in WAL mode, in-memory geo index, in-process bus).
enum ServerCommand {
    static let usage = """
        usage: hail server [--port 8080] [--host 127.0.0.1] [--db ./hail.db] [--secret-file ./hail.secret]
                           [--jwks FILE [--token-issuer hail] [--token-audience hail]
                            [--token-leeway-seconds 60] [--jwks-reload-seconds 60]] [--metrics-token-file FILE]
                           [--public-url http://localhost:8080] [--postgres URL] [--redis URL]
                           [--postgres-schema NAME] [--redis-prefix PREFIX]
                           [--roads PATH.osm.pbf | --roads generated] [--flags FILE] [--quiet]
                           [--requests-per-address R[:B]] [--requests-per-token R[:B]]
                           [--connections-per-address R[:B]] [--connections-per-token R[:B]]
                           [--messages-per-socket R[:B]] [--telemetry-per-token R[:B]]
                           [--open-connections-per-address N]
                           [--limit-loopback] [--no-rate-limits]
                           [--trusted-proxies A,B]
                           [--request-timeout SECONDS] [--request-deadline SECONDS]
                           [--backend-timeout SECONDS] [--loops N]
                           [--io-coalescing-us N] [--unpinned-loops]
                           [--drain-grace-seconds 5] [--drain-spread-seconds 5] [--drain-rate 400]
                           [--drain-seconds 30]
                           [--apns-key-file AuthKey_KEYID.p8 --apns-key-id KEYID --apns-team-id TEAMID
                            --apns-topic BUNDLE.ID [--apns-host HOST:PORT] [--apns-ca-file PEM]]

        Runs the Hail backend until SIGTERM (a drain, below) or Ctrl-C (a quick stop). Every acknowledged change
        is in the SQLite file before the answer leaves; restart on the same --db and nothing acknowledged is lost.

          --port         TCP port to listen on (0 picks a free one)          default 8080
          --host         address to bind; 0.0.0.0 for every interface        default 127.0.0.1
          --db           the SQLite database file, created when missing      default ./hail.db
          --secret-file  the server's secret (mode 0600): it signs share links, and on the embedded
                         shape without --jwks every token (`hail token --secret-file`). Created when
                         missing by the embedded shape only; --postgres/--redis nodes refuse to
                         start without it                                    default ./hail.secret
          --public-url   the base URL put in share links                     default http://localhost:PORT
          --postgres     trips, audit log, idempotency and history in PostgreSQL instead of --db
                         (postgresql://user@host:port/db?sslmode=verify-full&sslrootcert=CA.pem);
                         several nodes may share it. A host off this machine gets sslmode=verify-full
                         unless the URL or PGSSLMODE says otherwise; passfile= keeps the password
                         out of the command line
          --redis        geo index, pub/sub, dispatch offers and drivers' ingest state in Redis
                         (redis://[user:password@]host:port/db, or rediss:// for TLS with ?cacert=CA.pem
                         [&cert=C.pem&key=K.pem][&sni=NAME]; password_file=F instead of the password in
                         the URL), so a driver and a rider may be on any nodes. docs/DEPLOY.md,
                         "Backends inside the trust boundary", has the ACL user Hail needs
          --postgres-schema  the PostgreSQL schema, created when missing    default public
          --redis-prefix  put before every Redis key and channel, so deployments can share one
                         Redis; every node of one deployment uses the same   default none
          --roads        the road network for ETAs, estimates, dispatch order, snapped positions and
                         fare distances: an OpenStreetMap .osm.pbf file, or `generated` for the
                         built-in test city; without it every estimate is a straight line
          --flags        the flags per cohort, a JSON file (docs/DEPLOY.md, "Flags per cohort"; an
                         example in deploy/hail-flags.example.json): stream or poll, the route
                         provider, the ETA source, a device family's location cap, by app, version,
                         device, region and role. Checked at start (exit 65 with every problem, by
                         line and field) and read again on SIGHUP: a bad file keeps the flags in
                         force and says why.             default: stream, road ETA, no cap; graph when --roads
          --quiet        no request log (one JSON line per request on stderr otherwise)

        Tokens (docs/SECURITY.md, docs/DEPLOY.md "Access tokens"): with --jwks, access tokens are JWTs (ES256 or
        RS256) signed by the operator's identity provider, checked against the public keys of a JWKS file, which is
        read again on SIGHUP and every --jwks-reload-seconds (several keys at once: rotation logs no one out).
        A --postgres/--redis node requires --jwks; the secret's hail1 tokens are for the embedded demo only.
          --jwks                  the JWKS file (RFC 7517) of the keys tokens may be signed with (hail keys)
          --token-issuer          the iss every token must carry                 default hail
          --token-audience        the aud every token must include               default hail
          --token-leeway-seconds  clock skew forgiven on exp, nbf, iat (0 to 300)  default 60
          --jwks-reload-seconds   how often the JWKS file is read again          default 60
          --metrics-token-file    a file (mode 0600) holding the bearer token Prometheus sends for /metrics;
                                  an operator's access token is accepted too, no token never

        Timeouts (docs/DEPLOY.md, "Timeouts"): a backend that does not answer costs a 503 with Retry-After.
          --backend-timeout   how long one PostgreSQL or Redis call may wait (the Redis socket
                              timeout too, unless the Redis URL sets ?timeout=)      default 2
          --request-deadline  the longest a request's answer may take; past it, 503  default 4

        Limits (docs/SECURITY.md): a rate is R per second with bursts of B (`100:500`; `100` alone is a
        burst of one second's worth), or `off`. Over it: HTTP 429 with Retry-After, or WebSocket close 4029.
          --requests-per-address    HTTP requests per client address             default 100:500
          --requests-per-token      HTTP requests per token's rider/driver/...   default 10:100
          --connections-per-address WebSocket upgrades per client address        default 10:100
          --connections-per-token   WebSocket upgrades per token's principal     default 1:10
          --messages-per-socket     messages a client sends on one WebSocket     default 20:100
          --telemetry-per-token     telemetry batches per token's principal      default 0.0167:10 (1/min)
          --open-connections-per-address  WebSockets one address may hold open (or off)  default 1000
          --limit-loopback          limit clients on 127.0.0.0/8 and ::1 too (the demo, simulator and
                                    `hail bench` run there, so they are spared by default)
          --no-rate-limits          none of these limits (e.g. for `hail bench` from another machine)
          --trusted-proxies         peers whose X-Forwarded-For names the client  default 127.0.0.1,::1
          --request-timeout         seconds to send a whole request; slower ones are dropped  default 20
          --loops                   event loops (threads) serving connections  default one per core
          --io-coalescing-us        microseconds a busy loop gathers ready sockets before it polls
                                    again (0: at once; more batches more per wake-up)  default 500
          --unpinned-loops          let the scheduler place the loops (by default loop i runs on core i;
                                    either way each new connection goes to the loop holding fewest)

        Drain (docs/DEPLOY.md, "Drain and rolling restarts"): on SIGTERM /readyz answers 503 `draining` at once
        and the node keeps serving; after the grace it stops accepting connections and closes each WebSocket
        with 4012 "reconnect now" at its own moment: the drivers' streams first, each rider once its driver's
        positions come back through the bus from another node, then, 2 s later, the other watchers (none
        within 6 s of its driver's close), over a window of at least
        --drain-spread-seconds, longer for a node holding more than spread x rate streams; once every stream and
        request is done and the acknowledged work is flushed it exits 0. At --drain-seconds it exits (0) whatever
        is open; a second SIGTERM, or a Ctrl-C, exits at once (1).
          --drain-grace-seconds   unready but still accepting: longer than the balancer takes to see a
                                  failing /readyz (its interval x its failure threshold)  default 5
          --drain-spread-seconds  the shortest window the WebSocket closes are spread over default 5
          --drain-rate            streams a second the other nodes are sent at most: the
                                  window is count / rate when that is longer (within the
                                  bound)                                                  default 400
          --drain-seconds         the longest a drain may take, from the signal to the exit  default 30

        Push (README, "Point the server at real APNs"): alerts and Live Activity updates go straight to Apple
        over HTTP/2 with a token-based (.p8) key when the four first flags are given; without them, to the
        signed webhook when HAIL_PUSH_WEBHOOK_URL and HAIL_PUSH_WEBHOOK_SECRET are set, or nowhere.
          --apns-key-file  the team's APNs auth key, AuthKey_<KEYID>.p8 from the developer account
          --apns-key-id    the key's id (10 characters)
          --apns-team-id   the team id (10 characters)
          --apns-topic     the rider app's bundle id, for devices that registered none
          --apns-host      HOST[:PORT] for every push instead of api.push.apple.com and
                           api.sandbox.push.apple.com (a stand-in for tests)
          --apns-ca-file   trust this PEM instead of the system's certificates (a stand-in's own)
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: Set(
                [
                    "--port", "--host", "--db", "--secret-file", "--public-url", "--postgres", "--redis", "--roads",
                    "--route-cohorts", "--flags", "--postgres-schema", "--redis-prefix", "--requests-per-address",
                    "--requests-per-token", "--connections-per-address", "--connections-per-token",
                    "--messages-per-socket", "--telemetry-per-token",
                    "--open-connections-per-address",
                    "--trusted-proxies", "--request-timeout", "--loops", "--io-coalescing-us", "--backend-timeout",
                    "--request-deadline", "--clock-offset-seconds", "--drain-grace-seconds", "--drain-spread-seconds",
                    "--drain-seconds", "--drain-rate",
                ] + apnsOptions + tokenOptions),
            flags: ["--quiet", "--limit-loopback", "--no-rate-limits", "--unpinned-loops"])
        var options = BackendServer.Options()
        // Before anything is created on disk: a push configuration that cannot work stops the start-up.
        let pushSummary = try configureAPNs(&options.configuration, args)
        options.port = try args.integer("--port", default: 8080, in: 0...65535)
        options.host = args["--host"] ?? "127.0.0.1"
        options.databasePath = args["--db"] ?? "hail.db"
        // The key set and metrics token before anything is created on disk: a bad one changes nothing.
        let jwksReload = try configureTokens(&options, args)
        let scaled = args["--postgres"] != nil || args["--redis"] != nil
        if scaled, options.tokenKeys == nil {
            // The secret's hail1 tokens are for the embedded demo: every node holding the secret could mint any
            // rider, driver or operator. A deployment's access tokens are JWTs its identity provider signs.
            throw UsageError(
                "a --postgres/--redis node needs --jwks FILE: access tokens of a deployment are JWTs (hail1 tokens "
                    + "are for the embedded demo and share links only). Make a key once with "
                    + "`hail keys --private-key signing.pem --jwks hail.jwks`, start every node with "
                    + "--jwks hail.jwks, and mint tokens with `hail token --private-key signing.pem ...` "
                    + "(docs/DEPLOY.md, \"Access tokens\")")
        }
        let secretPath = args["--secret-file"] ?? "hail.secret"
        if scaled, !FileManager.default.fileExists(atPath: secretPath) {
            // A node whose volume was not mounted must not make a secret of its own: it would refuse every share
            // link the other nodes hand out.
            throw UsageError(
                "the secret file \(secretPath) is missing; a --postgres/--redis node never creates one: "
                    + "give every node the deployment's secret (mode 0600) with --secret-file")
        }
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
        if args["--loops"] != nil { options.loops = try args.integer("--loops", default: 1, in: 1...64) }
        if args.has("--unpinned-loops") { options.pinsLoops = false }
        if args["--io-coalescing-us"] != nil {
            options.ioCoalescing = .microseconds(try args.integer("--io-coalescing-us", default: 500, in: 0...100_000))
        }
        try configureLimits(&options.configuration, args)
        // Test-only, and so not in the usage: a node whose clock is this far off (docs/DEPLOY.md, "Clocks").
        let time = Timeline.system(offset: try clockOffset(args))
        let backendTimeout = try seconds(args, "--backend-timeout", in: 0.1...60)
        options.configuration.requestDeadline =
            try seconds(args, "--request-deadline", in: 0.5...60) ?? ServerConfiguration.defaultRequestDeadline
        if args["--route-cohorts"] != nil {
            throw UsageError(
                "--route-cohorts moved into the flags file: set `routeProvider` per cohort there and pass --flags FILE"
                    + " (docs/DEPLOY.md, \"Flags per cohort\")")
        }
        let drain = try drainSettings(args)
        let roadsSummary = try configureRoutes(&options.configuration, roads: args["--roads"], flags: args["--flags"])
        let server: BackendServer
        var storage = "database \(options.databasePath)"
        do {
            if scaled {
                let backends = try await ScaledBackends.open(
                    postgresURL: args["--postgres"], redisURL: args["--redis"], databasePath: options.databasePath,
                    postgresSchema: args["--postgres-schema"] ?? "public", redisPrefix: args["--redis-prefix"] ?? "",
                    backendTimeout: backendTimeout)
                let services = try await backends.services(
                    configuration: options.configuration, tokens: options.tokenAuthority, time: time)
                server = try await BackendServer.start(services: services, options: options)
                storage = backends.summary
                for warning in backends.warnings {
                    try? FileHandle.standardError.write(contentsOf: Data("hail server: warning: \(warning)\n".utf8))
                }
            } else {
                server = try await BackendServer.start(options, time: time)
            }
        } catch {
            throw UsageError.failed("the server could not start: \(error)")
        }
        if args["--public-url"] == nil {
            // Share links point where this server really listens.
            say("Share links use http://localhost:\(server.port); pass --public-url for another address.")
        }
        say("Hail server listening on http://\(options.host):\(server.port)  (\(storage); \(roadsSummary))")
        if let pushSummary { say(pushSummary) }
        if let keys = options.tokenKeys {
            say(
                "Access tokens: JWTs of the key set \(keys.path ?? "") (\(keys.current.count) keys), "
                    + "iss \(options.tokenRules.issuer), aud \(options.tokenRules.audience)")
        } else {
            say("Mint a token: hail token --role rider --subject rider-1 --secret-file \(secretPath)")
        }
        let status = await Signals.runUntilInterrupted(server, drain: drain, jwksReload: jwksReload)
        if status != 0 { exit(status) }
    }

    /// The drain's settings from `--drain-grace-seconds`, `--drain-spread-seconds`, `--drain-rate` and
    /// `--drain-seconds`.
    static func drainSettings(_ args: Arguments) throws(UsageError) -> DrainSettings {
        var settings = DrainSettings()
        for (option, path) in [
            ("--drain-grace-seconds", \DrainSettings.grace), ("--drain-spread-seconds", \.spread),
            ("--drain-seconds", \.bound),
        ] as [(String, WritableKeyPath<DrainSettings, TimeInterval>)] {
            if let value = try seconds(args, option, in: 0...3600) { settings[keyPath: path] = value.timeInterval }
        }
        if let text = args["--drain-rate"] {
            guard let rate = Double(text), rate.isFinite, rate >= 1, rate <= 1_000_000 else {
                throw UsageError("--drain-rate needs streams a second between 1 and 1000000, not '\(text)'")
            }
            settings.rate = rate
        }
        if let problem = settings.problem { throw UsageError(problem) }
        return settings
    }
}

extension ServerCommand {
    /// `--clock-offset-seconds`: seconds added to every date the node reads (test-only: a node whose clock is off).
    static func clockOffset(_ args: Arguments) throws(UsageError) -> TimeInterval {
        guard let text = args["--clock-offset-seconds"] else { return 0 }
        guard let seconds = Double(text), seconds.isFinite, abs(seconds) <= 86_400 * 366 else {
            throw UsageError("--clock-offset-seconds needs seconds between -31622400 and 31622400, not '\(text)'")
        }
        return seconds
    }

    /// `option`'s value in seconds, nil when it is not given; a usage error outside `range`.
    static func seconds(_ args: Arguments, _ option: String, in range: ClosedRange<Double>) throws(UsageError)
        -> Duration?
    {
        guard let text = args[option] else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw UsageError("\(option) must be seconds from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// Loads `--roads` once, before the server starts, and checks the `--flags` file against the providers that
    /// exist with it (a bad file stops the start with every problem); returns a one-line summary for the start-up
    /// message.
    static func configureRoutes(_ configuration: inout ServerConfiguration, roads: String?, flags: String?)
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
        var flagsSummary = ""
        if let flags {
            guard !flags.isEmpty else { throw UsageError("--flags needs a JSON file (docs/DEPLOY.md)") }
            do {
                let read = try FlagsStore.read(
                    .file(flags), providers: ServerRouting.providerNames(network: network),
                    routeProvider: ServerRouting.defaultProvider(network: network))
                flagsSummary = "; flags \(flags): \(read.cohorts.count) cohorts, \(read.regions.regions.count) regions"
            } catch {
                throw UsageError.invalidData(Self.describe(error))
            }
            configuration.flags = .file(flags)
        }
        guard let network else { return "straight-line estimates, no road network" + flagsSummary }
        return "roads: \(network.graph.nodeCount) nodes, \(network.graph.edgeCount) edges" + flagsSummary
    }

    /// A flags file's problems for a terminal: the file, then one line per problem.
    static func describe(_ error: FlagsFileError) -> String {
        "--flags \(error.path): \(error.problems.count == 1 ? "a problem" : "\(error.problems.count) problems")"
            + " to fix (the server did not start):\n"
            + error.problems.map { "  \($0)" }.joined(separator: "\n")
    }
}

extension ServerCommand {
    /// Applies the rate-limit and timeout flags to `configuration`.
    static func configureLimits(_ configuration: inout ServerConfiguration, _ args: Arguments) throws(UsageError) {
        let rates: [(String, WritableKeyPath<RateLimits, Rate?>)] = [
            ("--requests-per-address", \.requestsPerAddress), ("--requests-per-token", \.requestsPerToken),
            ("--connections-per-address", \.connectionsPerAddress), ("--connections-per-token", \.connectionsPerToken),
            ("--messages-per-socket", \.messagesPerConnection), ("--telemetry-per-token", \.telemetryPerToken),
        ]
        if args.has("--no-rate-limits") {
            if let flag = rates.map(\.0).first(where: { args[$0] != nil }) {
                throw UsageError("--no-rate-limits and \(flag) exclude each other")
            }
            if args["--open-connections-per-address"] != nil {
                throw UsageError("--no-rate-limits and --open-connections-per-address exclude each other")
            }
            for (_, path) in rates { configuration.rateLimits[keyPath: path] = nil }
            configuration.rateLimits.openConnectionsPerAddress = nil
        }
        if let text = args["--open-connections-per-address"] {
            guard text == "off" || Int(text).map({ $0 >= 1 }) == true else {
                throw UsageError("--open-connections-per-address takes a count of at least 1, or `off`; not '\(text)'")
            }
            configuration.rateLimits.openConnectionsPerAddress = Int(text)
        }
        for (flag, path) in rates {
            guard let text = args[flag] else { continue }
            if text == "off" {
                configuration.rateLimits[keyPath: path] = nil
            } else if let rate = Rate(parsing: text) {
                configuration.rateLimits[keyPath: path] = rate
            } else {
                throw UsageError(
                    "\(flag) takes a rate per second, optionally with a burst of at least 1 (`100`, `100:500`), or `off`;"
                        + " not '\(text)'")
            }
        }
        if args.has("--limit-loopback") { configuration.rateLimits.limitLoopback = true }
        if let proxies = args["--trusted-proxies"] {
            configuration.rateLimits.trustedProxies = Set(
                proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        configuration.requestTimeoutSeconds = try args.integer("--request-timeout", default: 20, in: 1...3600)
    }
}

/// Drains the node on SIGTERM (`NodeDrain`), stops it at once on SIGINT (or a second SIGTERM during a drain), and
/// reads the flags file and the key set again on SIGHUP (the key set also at an interval).
enum Signals {
    /// Serves until stopped; returns the exit status (the drain's, or 0 after a Ctrl-C).
    static func runUntilInterrupted(_ server: BackendServer, drain settings: DrainSettings, jwksReload: Duration?)
        async -> Int32
    {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        let time = server.services.time
        // The drain's steps are logged whatever --quiet says: an operator rolling nodes must see where each is.
        let drain = NodeDrain(
            target: server, settings: settings, time: time, seed: UInt64.random(in: 0...UInt64.max),
            log: { event, fields in log(event, fields, time: time) })
        let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        terminate.setEventHandler { Task { await drain.terminate() } }
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler {
            Task {
                // A Ctrl-C stops at once: a drain under way is forced, a node serving is shut down.
                if await drain.phase == .serving { await server.shutdown() } else { await drain.terminate() }
            }
        }
        let sources = [terminate, interrupt]
        for source in sources { source.resume() }
        let ending = Task { () -> DrainOutcome in
            let outcome = await drain.finished()
            await server.shutdown()
            return outcome
        }
        // Reloads one at a time, in the order the signals came: a serial queue of its own.
        let hangUp = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "hail-flags-reload"))
        hangUp.setEventHandler {
            reloadFlags(server.services)
            reloadKeys(server.services, always: true)
        }
        hangUp.resume()
        defer { hangUp.cancel() }
        // The key set is read again at an interval too: a rotation reaches every node without a signal.
        let keyReload = Task {
            guard let jwksReload else { return }
            while !Task.isCancelled {
                try? await server.services.time.sleep(for: jwksReload)
                if Task.isCancelled { return }
                reloadKeys(server.services, always: false)
            }
        }
        defer { keyReload.cancel() }
        do { try await server.run() } catch {
            try? FileHandle.standardError.write(contentsOf: Data("hail server: \(error)\n".utf8))
        }
        for source in sources { source.cancel() }
        let status: Int32
        if await drain.phase != .serving {
            status = await ending.value.exitStatus
        } else {
            ending.cancel()
            status = 0
        }
        say("Hail server stopped.")
        return status
    }

    /// One JSON line on stderr for a step of the drain.
    static func log(_ event: String, _ fields: [String: String], time: Timeline) {
        var line: [String: String] = fields
        line["event"] = event
        line["at"] = (try? WireDate.format(time.now())) ?? ""
        let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) ?? Data()
        try? FileHandle.standardError.write(contentsOf: data + Data("\n".utf8))
    }
}

extension Signals {
    /// Reads the flags file again and logs one JSON line on stderr (whatever `--quiet` says: a reload is rare and
    /// an operator must see why one was refused): `flags_reloaded` with the counts, or `flags_rejected` with every
    /// problem, the flags in force kept.
    static func reloadFlags(_ services: ServerServices) {
        var fields: [String: Any] = ["at": (try? WireDate.format(services.time.now())) ?? ""]
        if case .file(let path) = services.flags.setting { fields["path"] = path }
        do {
            let flags = try services.flags.reload()
            fields["event"] = "flags_reloaded"
            fields["cohorts"] = flags.cohorts.count
            fields["regions"] = flags.regions.regions.count
        } catch {
            fields["event"] = "flags_rejected"
            fields["problems"] = error.problems.map(\.description)
            fields["kept"] = "the flags in force"
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        try? FileHandle.standardError.write(contentsOf: data + Data("\n".utf8))
    }
}
