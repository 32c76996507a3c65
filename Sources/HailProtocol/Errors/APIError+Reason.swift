extension APIError {
    /// Which trip safety rule refused a 409. A struct rather than an enum, so an older app decodes a newer rule.
    public struct Reason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The reason as it appears on the wire, in snake_case.
        public let rawValue: String

        /// Wraps any reason string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `started` without the trip's pickup PIN, or with another.
        public static let wrongPickupPIN = Reason(rawValue: "wrong_pickup_pin")
        /// Too many wrong PINs: starting is locked for `retryAfterSeconds`.
        public static let pickupPINLocked = Reason(rawValue: "pickup_pin_locked")
        /// `arrived` or `started` while the driver's fresh fix is more than 150 m from the pickup.
        public static let tooFarFromPickup = Reason(rawValue: "too_far_from_pickup")

        /// Reads a bare reason string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Writes the bare reason string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// The wire string.
        public var description: String { rawValue }
    }
}
