import HailCore

/// Something that estimates a drive between two points.
///
/// Its answers are advice: the server may use them for ETAs, dispatch and drawing, may reject them
/// (an ETA that makes no sense, a provider that is down), and never lets them write trip state.
public protocol RouteProvider: Sendable {
    /// A short stable name (`graph`, `straight-line`), used as the value in the cohort setting.
    var name: String { get }

    /// The advice for driving from `start` to `end`, or nil when the provider has none.
    func advise(from start: Coordinate, to end: Coordinate) -> RouteAdvice?
    /// The advice for a car at `start` facing `heading` (degrees, nil when unknown): a car cannot turn round
    /// on the spot, so one facing away from `end` has the longer way to go.
    func advise(from start: Coordinate, heading: Double?, to end: Coordinate) -> RouteAdvice?
}

extension RouteProvider {
    /// A provider that does not use the heading gives its advice without it.
    public func advise(from start: Coordinate, heading: Double?, to end: Coordinate) -> RouteAdvice? {
        advise(from: start, to: end)
    }
}
