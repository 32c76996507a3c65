/// Whether the phone is on its battery, as the platform reports it (`UIDevice.BatteryState` case for case).
public enum BatteryState: String, Codable, Sendable, Hashable, CaseIterable {
    /// The platform cannot tell (a simulator, monitoring off).
    case unknown
    /// On battery: the only state whose level changes say what the app costs.
    case unplugged
    /// Plugged in and charging.
    case charging
    /// Plugged in and full.
    case full
}
