import Foundation
import HailCore

/// `hail ride`: a terminal rider app on `RiderModel`.
enum RideCommand {
    static let usage = """
        usage: hail ride --server URL --token TOKEN --from LAT,LNG --to LAT,LNG [--product economy] [--json]
                         [--state PATH]

        Requests a ride between two points (or resumes your active trip) and follows it: state, ETA, pin
        freshness and the car's distance to the pickup. Type c and Enter to cancel before the trip starts.

          --server URL    the Hail server, such as http://127.0.0.1:8080
          --token TOKEN   a rider token (hail token --role rider --subject NAME)
          --from LAT,LNG  the pickup, such as 43.7396,7.4276
          --to LAT,LNG    the dropoff
          --product ID    economy (default) or xl
          --json          one JSON line per screen change, for scripts, with the stored cursor
          --state PATH    where the stream cursor is stored (default: in the temporary directory)

        Exit status: 0 when the trip completes; 1 when the request fails or the server cannot be used;
        2 when the trip is cancelled; 3 when no driver is found; 64 for a usage mistake.
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: ["--server", "--token", "--from", "--to", "--product", "--state"], flags: ["--json"])
        guard let serverText = parsed["--server"] else { throw UsageError("--server is required") }
        guard let server = URL(string: serverText), let scheme = server.scheme, ["http", "https"].contains(scheme),
            server.host != nil
        else { throw UsageError("--server must be an http:// or https:// URL, not '\(serverText)'") }
        guard let token = parsed["--token"], !token.isEmpty else { throw UsageError("--token is required") }
        let pickup = try coordinate(parsed["--from"], option: "--from")
        let dropoff = try coordinate(parsed["--to"], option: "--to")
        let product = ProductID(rawValue: parsed["--product"] ?? ProductID.economy.rawValue)
        guard !product.rawValue.isEmpty else { throw UsageError("--product must not be empty") }
        let statePath =
            parsed["--state"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("hail-ride-cursor.sqlite").path
        let options = RideSession.Options(
            server: server, token: token, pickup: pickup, dropoff: dropoff, product: product,
            json: parsed.has("--json"), statePath: statePath)
        let status = await RideSession.run(options)
        exit(status)
    }

    /// Reads `LAT,LNG` with both numbers in range.
    static func coordinate(_ text: String?, option: String) throws(UsageError) -> Coordinate {
        guard let text else { throw UsageError("\(option) is required") }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2, let lat = Double(parts[0]), let lng = Double(parts[1]) else {
            throw UsageError("\(option) must be LAT,LNG such as 43.7396,7.4276, not '\(text)'")
        }
        let value = Coordinate(lat: lat, lng: lng)
        if let problem = value.validationProblem { throw UsageError("\(option): \(problem.message)") }
        return value
    }
}
