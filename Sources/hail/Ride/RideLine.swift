import Foundation
import HailCore
import HailProtocol
import HailRider

/// One printed line for one rider screen: words for a person, one JSON object for a script.
struct RideLine: Encodable {
    var phase: String
    var tripID: String?
    var driver: Driver?
    var etaMinutes: Int?
    var fare: Money?
    var pin: String?
    var delayed: Bool
    var canCancel: Bool
    var distanceToCarMeters: Int?
    var error: String?
    /// The stream cursor the app has stored (the seq of the last position it saved), where a relaunch resumes.
    var cursor: Int64?

    init(screen: RiderScreen, cursor: Int64? = nil) {
        phase = screen.phase.rawValue
        tripID = screen.tripID
        driver = screen.driver
        etaMinutes = screen.etaMinutes
        fare = screen.fare
        pin = screen.pin?.rawValue
        delayed = screen.showsDelayedBanner
        canCancel = screen.canCancel
        distanceToCarMeters = screen.distanceToCarMeters
        error = screen.problem.map(Self.words)
        self.cursor = cursor
    }

    /// What the terminal app says of a problem (the model says what happened; an app says it in its language).
    static func words(for problem: RiderScreen.Problem) -> String {
        switch problem {
        case .pricesUnavailable: "Could not load prices. Try again."
        case .requestFailed: "Could not request a ride. Try again."
        case .cancelFailed: "Could not cancel. Try again."
        case .checkInFailed: "Could not send your answer. Try again."
        case .tripMovedOn: "That is no longer possible: the trip has moved on."
        case .refused(_, let reason): reason
        }
    }

    var json: String {
        (try? HailJSON.encodeString(self)) ?? #"{"phase": "\#(phase)"}"#
    }

    var text: String {
        var parts: [String] = []
        switch phase {
        case "idle": parts.append("Ready to request")
        case "searching": parts.append("Finding a driver…")
        case "driverAssigned": parts.append("Driver on the way")
        case "driverArrived": parts.append("Your driver is here")
        case "onTrip": parts.append("On the way to your destination")
        case "completed": parts.append("Arrived")
        case "cancelled": parts.append("Trip cancelled")
        case "noDriversFound": parts.append("No drivers available")
        default: parts.append("No connection, showing the last known state")
        }
        if let driver { parts.append("\(driver.name), \(driver.carModel) \(driver.plate)") }
        if let etaMinutes { parts.append(etaMinutes == 0 ? "now" : "\(etaMinutes) min") }
        if let distanceToCarMeters { parts.append("car \(distanceToCarMeters) m from the pickup") }
        if let pin { parts.append("pin \(pin)") }
        if delayed, pin != nil { parts.append("Driver's location may be delayed") }
        if let fare { parts.append("fare \(Self.format(fare))") }
        if canCancel { parts.append("(c + Enter to cancel)") }
        if let error { parts.append("! \(error)") }
        return parts.joined(separator: " · ")
    }

    /// `18.50 EUR`: two decimals, which fits the currencies the demo tariffs use.
    static func format(_ money: Money) -> String {
        let sign = money.amountMinor < 0 ? "-" : ""
        let magnitude = money.amountMinor.magnitude
        let cents = magnitude % 100
        return "\(sign)\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents) \(money.currency)"
    }
}
