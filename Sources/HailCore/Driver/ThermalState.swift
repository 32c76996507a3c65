/// How hot the phone is, mirroring `ProcessInfo.ThermalState` case for case so the Apple adapter maps 1:1.
///
/// Ordered from cool to hot so that policies can compare states.
public enum ThermalState: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Within normal limits.
    case nominal
    /// Slightly elevated; the system starts trimming background work.
    case fair
    /// High; the system throttles the CPU and the user may notice.
    case serious
    /// Critical; the app should shed every cost it can.
    case critical

    /// Cooler states sort first.
    public static func < (lhs: ThermalState, rhs: ThermalState) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .nominal: return 0
        case .fair: return 1
        case .serious: return 2
        case .critical: return 3
        }
    }
}
