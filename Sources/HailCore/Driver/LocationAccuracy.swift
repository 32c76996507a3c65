/// The accuracy the driver app asks the location hardware for, independent of any platform's constants.
///
/// Ordered from finest to coarsest, so that the coarser of two wishes is their `max`. The Apple adapter
/// maps `best`, `nearestTenMeters` and `hundredMeters` to the `kCLLocationAccuracy` constants of the same
/// names. `balanced` is Android's `PRIORITY_BALANCED_POWER_ACCURACY` (block level, mostly Wi-Fi and cell);
/// Apple has no such constant, so its adapter uses `kCLLocationAccuracyHundredMeters` for it too.
public enum LocationAccuracy: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// The best the hardware can do: full GPS.
    case best
    /// About ten metres.
    case nearestTenMeters
    /// Good enough to place a waiting car in a city block, at a fraction of the power.
    case balanced
    /// About a hundred metres.
    case hundredMeters

    /// Finer accuracies sort first.
    public static func < (lhs: LocationAccuracy, rhs: LocationAccuracy) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .best: return 0
        case .nearestTenMeters: return 1
        case .balanced: return 2
        case .hundredMeters: return 3
        }
    }
}
