import HailCore

/// The fare rules per product, in integer minor units of one currency.
public struct PricingTable: Sendable, Hashable {
    /// One product's tariff.
    public struct Tariff: Sendable, Hashable {
        /// Charged on every trip.
        public var baseMinor: Int
        /// Charged per whole or part kilometre driven, in minor units per km.
        public var perKilometreMinor: Int
        /// Charged per minute of trip, in minor units per minute.
        public var perMinuteMinor: Int
        /// The least a trip costs.
        public var minimumMinor: Int

        /// Creates a tariff.
        public init(baseMinor: Int, perKilometreMinor: Int, perMinuteMinor: Int, minimumMinor: Int) {
            self.baseMinor = baseMinor
            self.perKilometreMinor = perKilometreMinor
            self.perMinuteMinor = perMinuteMinor
            self.minimumMinor = minimumMinor
        }
    }

    /// The currency every tariff is in.
    public var currency: String
    /// Tariffs by product.
    public var tariffs: [ProductID: Tariff]

    /// Creates a table.
    public init(currency: String, tariffs: [ProductID: Tariff]) {
        self.currency = currency
        self.tariffs = tariffs
    }

    /// Monaco-ish defaults: economy and xl in euros.
    public static let standard = PricingTable(
        currency: "EUR",
        tariffs: [
            .economy: Tariff(baseMinor: 250, perKilometreMinor: 120, perMinuteMinor: 30, minimumMinor: 700),
            .xl: Tariff(baseMinor: 400, perKilometreMinor: 180, perMinuteMinor: 45, minimumMinor: 1100),
        ]
    )

    /// The products on sale, sorted by id.
    public var products: [ProductID] { tariffs.keys.sorted { $0.rawValue < $1.rawValue } }

    /// The fare for `distanceMeters` driven over `durationSeconds`, or nil for an unknown product.
    ///
    /// Distance and time are charged pro rata in exact integer arithmetic (metres x rate / 1000, rounded
    /// half up), so the same trip always costs the same to the cent, on every node.
    public func fare(for product: ProductID, distanceMeters: Double, durationSeconds: Double) -> Money? {
        guard let tariff = tariffs[product] else { return nil }
        let metres = Int(max(0, distanceMeters).rounded())
        let seconds = Int(max(0, durationSeconds).rounded())
        let distancePart = (metres * tariff.perKilometreMinor + 500) / 1000
        let timePart = (seconds * tariff.perMinuteMinor + 30) / 60
        let total = max(tariff.minimumMinor, tariff.baseMinor + distancePart + timePart)
        return Money(amountMinor: total, currency: currency)
    }
}
