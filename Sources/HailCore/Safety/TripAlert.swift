import Foundation

/// A trip alert: what the server noticed on a trip under way, when, and the rider's check-in answer once given.
public struct TripAlert: Codable, Sendable, Hashable {
    /// What was noticed.
    public var kind: TripAlertKind
    /// When what was noticed began: the car's first position out of the plan's corridor, or of the stop (server time).
    public var since: Date
    /// When the server noticed it (server time).
    public var raisedAt: Date
    /// The rider's answer, once given.
    public var answer: CheckInAnswer?
    /// When the rider answered (server time).
    public var answeredAt: Date?

    /// Creates an alert not answered yet.
    public init(
        kind: TripAlertKind, since: Date, raisedAt: Date, answer: CheckInAnswer? = nil, answeredAt: Date? = nil
    ) {
        self.kind = kind
        self.since = since
        self.raisedAt = raisedAt
        self.answer = answer
        self.answeredAt = answeredAt
    }
}
