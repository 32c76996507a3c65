import HailCore
import HailRoads

/// Distance and time between two points from one route provider, checked and with a straight-line
/// fallback, so a caller always gets an answer it can quote.
///
/// The provider's answer is advice: a missing answer (off the roads, unreachable) or an implausible one
/// (not finite, negative, or a detour of more than ten times the straight line) is replaced by the
/// straight-line estimate rather than shown.
public struct RouteEstimator: Sendable {
    /// The provider asked first.
    public let provider: any RouteProvider
    /// The estimate used when the provider has no usable answer: 1.3 times the straight line at 30 km/h.
    public let fallback: StraightLineRouteProvider

    /// Creates an estimator over `provider`.
    public init(
        provider: any RouteProvider, fallback: StraightLineRouteProvider = Self.straightLine
    ) {
        self.provider = provider
        self.fallback = fallback
    }

    /// The straight-line provider with the town numbers quoted before road routing existed.
    public static let straightLine = StraightLineRouteProvider(
        detourFactor: StraightLineETA.detourFactor, speedKmh: StraightLineETA.speedKmh)

    /// The provider's advice when it is usable, else the fallback's (nil only for invalid coordinates).
    public func advice(from start: Coordinate, to end: Coordinate) -> RouteAdvice? {
        if let advice = provider.advise(from: start, to: end), Self.isPlausible(advice, from: start, to: end) {
            return advice
        }
        return fallback.advise(from: start, to: end)
    }

    /// Estimated road distance in metres.
    public func distance(from start: Coordinate, to end: Coordinate) -> Double {
        advice(from: start, to: end)?.distance ?? 0
    }

    /// Estimated driving time in whole seconds.
    public func seconds(from start: Coordinate, to end: Coordinate) -> Int {
        Int((advice(from: start, to: end)?.duration ?? 0).rounded())
    }

    /// Whether advice is usable: finite, not negative, and not an absurd detour (a wrong snap).
    static func isPlausible(_ advice: RouteAdvice, from start: Coordinate, to end: Coordinate) -> Bool {
        guard advice.distance.isFinite, advice.duration.isFinite, advice.distance >= 0, advice.duration >= 0 else {
            return false
        }
        return advice.distance <= 10 * start.distance(to: end) + 5_000
    }
}
