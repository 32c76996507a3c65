/// What the server noticed on a trip under way.
public enum TripAlertKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// The car left its planned route and kept going away from it.
    case routeDeviation
    /// The car stood for more than three minutes away from the drop-off.
    case longStop
}
