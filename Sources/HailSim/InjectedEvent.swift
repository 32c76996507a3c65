import Foundation
import HailCore

/// One thing the city did wrong on a trip under way, with when it truly began: what a trip alert must catch.
public struct InjectedEvent: Sendable, Hashable, Codable {
    /// The trip.
    public var tripID: String
    /// What was done: a wrong turn (`routeDeviation`) or a long stop (`longStop`).
    public var kind: TripAlertKind
    /// When it truly began: the first second the car was more than 100 m from the route its navigation reported, or
    /// came to rest; nil while it has not (a wrong turn that has not yet left the corridor).
    public var began: Date?
    /// Each time a wrong turn's car went out of the corridor (over 100 m from the route) after being back inside it,
    /// the first being `began`: a car inside the corridor is not deviating (issue 41's definition), so a wrong turn's
    /// alert is timed from the last exit before it, the excursion it caught (`SafetyScore` also times it from the
    /// first).
    public var exits: [Date] = []
    /// When it ended: the car re-routed back, or drove off again; nil while it lasts.
    public var ended: Date?
    /// How far from its reported route the car got, metres (a wrong turn's).
    public var farthestMeters: Double
    /// The route its navigation reported that the car left (a wrong turn's): with the positions the server stored
    /// (`hail sim --database`), it says when the server could first see the car out of the corridor.
    public var plan: [Coordinate] = []

    /// Creates an event that has not begun.
    public init(tripID: String, kind: TripAlertKind, began: Date? = nil, ended: Date? = nil, farthestMeters: Double = 0)
    {
        self.tripID = tripID
        self.kind = kind
        self.began = began
        self.ended = ended
        self.farthestMeters = farthestMeters
    }
}
