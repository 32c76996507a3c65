/// The one table of allowed trip state changes, from the brief. The server decides with it and the
/// clients check what they are told against it.
public enum TripTransitions {
    /// Every state and the states it may move to.
    public static let allowed: [TripState: Set<TripState>] = [
        .searching: [.driverAssigned, .noDriversFound, .cancelled],
        .driverAssigned: [.driverArrived, .searching, .cancelled],
        .driverArrived: [.onTrip, .cancelled],
        .onTrip: [.completed],
        .completed: [],
        .cancelled: [],
        .noDriversFound: [],
    ]

    /// True when the table allows `from` to move to `to`. Staying in a state is not a transition.
    public static func isAllowed(from: TripState, to: TripState) -> Bool {
        allowed[from, default: []].contains(to)
    }
}
