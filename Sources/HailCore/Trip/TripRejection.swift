/// Why the trip rules refused an intent. Nothing changed.
///
/// A struct around a reason rather than an enum, so that new reasons do not break callers' switches.
public struct TripRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of refusal; each maps to one HTTP status.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }

        /// The intent is not allowed in the trip's current state (HTTP 409).
        public static let notAllowedInState = Reason("notAllowedInState")
        /// The asker is not a party to this trip, or has the wrong role for this intent (HTTP 403).
        public static let forbidden = Reason("forbidden")
        /// The intent carries a value the rules refuse, such as a negative fare (HTTP 400).
        public static let invalid = Reason("invalid")
        /// A trip is requested over an id that already exists, or changed without one (HTTP 409).
        public static let conflict = Reason("conflict")

        /// The reason's name.
        public var description: String { raw }
    }

    /// The category of refusal.
    public let reason: Reason
    /// A sentence for the error body, naming the state or the rule.
    public let message: String

    /// Creates a rejection.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// `notAllowedInState: a rider cannot cancel once the trip has started`.
    public var description: String { "\(reason): \(message)" }
}
