import HailCore

/// Something a rider's trip came to, for the city's report.
enum RiderOutcome: Sendable {
    case requested
    case requestFailed
    case pickupETA(Int)
    case assigned(afterSeconds: Double)
    case completed(Money?)
    case cancelled
    case noDriversFound
    case versionWentBack
    case appKilled
}
