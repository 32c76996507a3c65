import Foundation
import HailCore

/// What the city measured so far.
public struct CityReport: Sendable, Hashable, Codable {
    /// Trips the server created for a rider's request.
    public var requested = 0
    /// Trips that reached `completed`.
    public var completed = 0
    /// Trips cancelled (by the rider or the driver).
    public var cancelled = 0
    /// Trips that found no driver.
    public var noDriversFound = 0
    /// Requests that got no trip (the server refused or could not be reached).
    public var requestFailures = 0
    /// The fares of completed trips.
    public var fares: [Money] = []
    /// Times a rider saw its trip's version go backwards (must be 0).
    public var versionRegressions = 0
    /// Rider apps killed and relaunched.
    public var appKills = 0
    /// The pickup ETA each rider was first shown with a driver assigned, in seconds.
    public var pickupETAs: [Int] = []
    /// Seconds from each request to the rider first seeing a driver assigned.
    public var secondsToAssign: [Double] = []

    /// Nothing measured yet.
    public init() {}

    /// The mean pickup ETA in seconds, nil before any.
    public var meanPickupETASeconds: Double? {
        pickupETAs.isEmpty ? nil : Double(pickupETAs.reduce(0, +)) / Double(pickupETAs.count)
    }

    /// The median pickup ETA in seconds, nil before any.
    public var medianPickupETASeconds: Int? {
        pickupETAs.isEmpty ? nil : pickupETAs.sorted()[pickupETAs.count / 2]
    }

    /// The median time from request to a driver assigned, seconds, nil before any.
    public var medianSecondsToAssign: Double? {
        secondsToAssign.isEmpty ? nil : secondsToAssign.sorted()[secondsToAssign.count / 2]
    }

    /// The mean fare of completed trips in minor units, nil before any (the demo sells in one currency).
    public var meanFareMinor: Int? {
        fares.isEmpty ? nil : fares.map(\.amountMinor).reduce(0, +) / fares.count
    }

    /// One line for a terminal.
    public var summary: String {
        let eta = meanPickupETASeconds.map { "\(Int($0.rounded())) s" } ?? "-"
        let fare = meanFareMinor.map { "\($0 / 100).\(String(format: "%02d", $0 % 100)) \(fares[0].currency)" } ?? "-"
        return
            "trips requested \(requested), completed \(completed), cancelled \(cancelled), no driver \(noDriversFound), "
            + "request failures \(requestFailures), mean pickup ETA \(eta), mean fare \(fare)"
    }
}
