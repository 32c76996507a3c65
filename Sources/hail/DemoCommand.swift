import Foundation
import HailServer

/// `hail demo`: the server on a fresh local database with tokens ready to use. The simulated city and
/// its live map join this command when the simulator lands.
enum DemoCommand {
    static let usage = """
        usage: hail demo [--port 8080]

        Starts the Hail backend with its data in ./.hail (demo.db, demo.secret), prints a rider, a driver
        and an operator token and the requests to try, and runs until Ctrl-C.
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let args = try Arguments(arguments, options: ["--port"], flags: [])
        let port = try args.integer("--port", default: 8080, in: 0...65535)
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
        let server: BackendServer
        do {
            server = try await BackendServer.start(options)
        } catch {
            throw UsageError("the server could not start (is port \(port) taken? try --port 0): \(error)")
        }
        let base = "http://127.0.0.1:\(server.port)"
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret))
        let now = Int64(Date().timeIntervalSince1970)
        func token(_ role: Role, _ subject: String) -> String {
            tokens.mint(AccessToken(role: role, sub: subject, exp: now + 86_400, iat: now))
        }
        let rider = token(.rider, "rider-demo")
        let driver = token(.driver, "driver-demo")
        say(
            """
            Hail is running at \(base) (data in ./.hail). Ctrl-C to stop.

            Fleet page (operator):  \(base)/?access_token=\(token(.operator, "operator-demo"))
            Metrics:                \(base)/metrics

            Put a driver online near the Casino, then request a ride as a rider:
              D=\(driver)
              R=\(rider)
              curl -s -X POST \(base)/v1/drivers/me/status -H "Authorization: Bearer $D" -d '{"online": true}'
              curl -s -X POST \(base)/v1/drivers/me/locations -H "Authorization: Bearer $D" \\
                -d '{"seq": 1, "points": [{"lat": 43.7400, "lng": 7.4280, "accuracy": 5, "heading": 0, "speed": 0, "t": "'$(date -u +%Y-%m-%dT%H:%M:%S.000Z)'"}]}'
              curl -s -X POST \(base)/v1/trips -H "Authorization: Bearer $R" -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \\
                -d '{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}, "productID": "economy"}'

            The simulated city and its live map arrive with the simulator; `hail walkthrough` plays one trip
            through the rider's core in the terminal meanwhile.
            """)
        await Signals.runUntilInterrupted(server)
    }
}
