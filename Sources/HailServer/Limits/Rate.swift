/// A sustained rate with a burst allowance: `perSecond` tokens refill a bucket that holds at most `burst`.
public struct Rate: Sendable, Hashable, CustomStringConvertible {
    /// Tokens added per second (the sustained rate). Positive.
    public var perSecond: Double
    /// The most tokens a bucket holds (how many may arrive at once after a quiet spell). At least 1.
    public var burst: Double

    /// A rate; `burst` defaults to one second's worth (at least 1).
    public init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = burst ?? max(1, perSecond)
    }

    /// Reads `RATE` or `RATE:BURST` (`100`, `100:500`, `0.5:10`); nil when either is not a positive number
    /// or the burst is below 1.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let rate = Double(parts[0]), rate.isFinite, rate > 0 else {
            return nil
        }
        if parts.count == 2 {
            guard let burst = Double(parts[1]), burst.isFinite, burst >= 1 else { return nil }
            self.init(perSecond: rate, burst: burst)
        } else {
            self.init(perSecond: rate)
        }
    }

    /// `100/s, burst 500`, for help texts and messages; a rate a second cannot write in three decimals but a
    /// minute can in whole numbers reads so (`1/min, burst 10`).
    public var description: String {
        let perMinute = (perSecond * 60 * 1e9).rounded() / 1e9
        let thousandths = perSecond * 1000
        if thousandths != thousandths.rounded(), perMinute == perMinute.rounded() {
            return "\(Self.number(perMinute))/min, burst \(Self.number(burst))"
        }
        return "\(Self.number(perSecond))/s, burst \(Self.number(burst))"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
