import Foundation

/// The wrong pickup PINs a trip's driver has entered in a row, and until when starting is locked after too many.
public struct PickupPINAttempts: Codable, Sendable, Hashable {
    /// Wrong codes since the last lock ended (or since the trip began).
    public var wrong: Int
    /// Until when (server time) no code is even checked; nil when not locked.
    public var lockedUntil: Date?

    /// Creates a count.
    public init(wrong: Int = 0, lockedUntil: Date? = nil) {
        self.wrong = wrong
        self.lockedUntil = lockedUntil
    }
}
