import Foundation
import HailCore

/// A distribution given by a few published quantiles, drawn by inverse transform: between two quantiles the
/// logarithm of the value runs straight, so a heavy tail (a 2.3 s round trip where the median is 0.35 s) keeps
/// its shape; beyond the first and last quantile the nearest segment's slope goes on to the probabilities 0 and 1.
public struct QuantileCurve: Sendable, Hashable, Codable {
    /// One published point: the share of draws at or under `value`.
    public struct Knot: Sendable, Hashable, Codable {
        /// The cumulative probability, in (0, 1).
        public var probability: Double
        /// The value at that probability, above 0.
        public var value: Double

        /// The point `value` at `probability`.
        public init(_ probability: Double, _ value: Double) {
            self.probability = probability
            self.value = value
        }
    }

    /// The knots in increasing order, the extrapolated ends at 0 and 1 included.
    public let knots: [Knot]

    /// The curve through `quantiles` (at least two, probabilities strictly inside (0, 1) and increasing, values
    /// above 0 and not decreasing), extended to the probabilities 0 and 1.
    public init(quantiles: [Knot]) {
        precondition(quantiles.count >= 2, "a curve needs two quantiles")
        precondition(
            zip(quantiles, quantiles.dropFirst()).allSatisfy {
                $0.probability < $1.probability && $0.value <= $1.value
            } && quantiles.allSatisfy { $0.probability > 0 && $0.probability < 1 && $0.value > 0 },
            "quantiles must rise")
        func extended(_ a: Knot, _ b: Knot, to probability: Double) -> Knot {
            let slope = (log(b.value) - log(a.value)) / (b.probability - a.probability)
            return Knot(probability, exp(log(a.value) + slope * (probability - a.probability)))
        }
        let count = quantiles.count
        knots =
            [extended(quantiles[0], quantiles[1], to: 0)] + quantiles
            + [extended(quantiles[count - 2], quantiles[count - 1], to: 1)]
    }

    /// The value at cumulative probability `probability` (clamped to [0, 1]).
    public func value(at probability: Double) -> Double {
        let p = min(max(probability, 0), 1)
        let upper = knots.firstIndex { $0.probability >= p } ?? knots.count - 1
        guard upper > 0 else { return knots[0].value }
        let a = knots[upper - 1]
        let b = knots[upper]
        let share = (p - a.probability) / (b.probability - a.probability)
        return exp(log(a.value) + share * (log(b.value) - log(a.value)))
    }

    /// One draw.
    public func draw(using random: inout SplitMix64) -> Double { value(at: random.unit()) }
}
