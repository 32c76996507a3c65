import Foundation
import HailClient
import HailCore
import HailDriver

/// `hail drive`: a terminal driver app on `DriverModel`.
enum DriveCommand {
    static let usage = """
        usage: hail drive --server URL --token TOKEN [--start LAT,LNG] [--trace FILE | --speed KMH] [--auto] [--json]
                          [--trips N] [--state FILE]

          --server URL     the backend, such as http://127.0.0.1:8080
          --token TOKEN    a driver token (hail token driver NAME)
          --start LAT,LNG  where the car stands (default 43.7384,7.4246, Monaco)
          --trace FILE     replay a recorded drive: Barefoot .json, the bus .csv (its longest trip) or .gpx
          --speed KMH      drive straight to the pickup and dropoff at this speed (default 40)
          --auto           accept offers and drive the trip without input
          --json           one JSON line per screen change, for scripts
          --trips N        with --auto, exit after N completed trips (default: keep driving)
          --state FILE     keep the outbox and unsent points in this SQLite file across restarts

        Keys (without --auto): a accept, d decline, arrived, start, end, cancel, online, offline, q quit.
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: ["--server", "--token", "--start", "--trace", "--speed", "--trips", "--state"],
            flags: ["--auto", "--json"])
        let options = try DriveOptions(parsed)
        let app: DriveApp
        do { app = try await DriveApp(options) } catch let error as UsageError { throw error } catch {
            throw UsageError("cannot start: \(error)")
        }
        await app.run()
    }
}
