import Foundation
import HailCore

/// The checked command line of `hail drive`.
struct DriveOptions {
    let server: URL
    let token: String
    let start: Coordinate
    let trace: String?
    let speedKMH: Double
    let auto: Bool
    let json: Bool
    let trips: Int
    let statePath: String?

    init(_ arguments: Arguments) throws(UsageError) {
        guard let serverText = arguments["--server"] else { throw UsageError("--server is required") }
        guard let server = URL(string: serverText), server.scheme == "http" || server.scheme == "https",
            server.host != nil
        else { throw UsageError("--server must be an http(s) URL such as http://127.0.0.1:8080, not '\(serverText)'") }
        guard let token = arguments["--token"], !token.isEmpty else { throw UsageError("--token is required") }
        self.server = server
        self.token = token
        if let text = arguments["--start"] {
            let parts = text.split(separator: ",")
            guard parts.count == 2, let lat = Double(parts[0]), let lng = Double(parts[1]) else {
                throw UsageError("--start must be LAT,LNG such as 43.7384,7.4246, not '\(text)'")
            }
            let coordinate = Coordinate(lat: lat, lng: lng)
            if let problem = coordinate.validationProblem { throw UsageError("--start: \(problem)") }
            start = coordinate
        } else {
            start = Coordinate(lat: 43.7384, lng: 7.4246)
        }
        trace = arguments["--trace"]
        if trace != nil, arguments["--speed"] != nil { throw UsageError("--trace and --speed exclude each other") }
        if let text = arguments["--speed"] {
            guard let value = Double(text), value > 0, value <= 200 else {
                throw UsageError("--speed must be a number of km/h above 0 and at most 200, not '\(text)'")
            }
            speedKMH = value
        } else {
            speedKMH = 40
        }
        auto = arguments.has("--auto")
        json = arguments.has("--json")
        trips = try arguments.integer("--trips", default: 0, in: 0...1_000_000)
        statePath = arguments["--state"]
    }
}
