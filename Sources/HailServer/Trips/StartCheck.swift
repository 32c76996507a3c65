/// What the driver's event brought for the trip authority's safety rules: the pickup PIN entered with `started`,
/// and whether the position check found no fresh fix (the change is then logged as unverified).
public struct StartCheck: Sendable, Hashable {
    /// The PIN sent with `started`, or nil.
    public var pin: String?
    /// True when no fresh fix could confirm the driver is at the pickup.
    public var unverified: Bool

    /// Creates the check's inputs.
    public init(pin: String? = nil, unverified: Bool = false) {
        self.pin = pin
        self.unverified = unverified
    }
}
