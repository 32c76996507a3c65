import HailDriver

extension DriverScreen.Headline {
    /// The headline as the terminal app prints it (an iOS app localises the same cases).
    var english: String {
        switch self {
        case .offline: "Offline"
        case .waitingForTrips: "Waiting for trips"
        case .newOffer: "New trip offer"
        case .accepting: "Accepting trip…"
        case .arriving: "Arriving…"
        case .starting: "Starting trip…"
        case .ending: "Ending trip…"
        case .cancelling: "Cancelling trip…"
        case .drivingToPickup: "Driving to pickup"
        case .atPickup: "At pickup"
        case .onTrip: "On trip"
        case .completed: "Trip completed"
        case .cancelled: "Trip cancelled"
        }
    }
}
