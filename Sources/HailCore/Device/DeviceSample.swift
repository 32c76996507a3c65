import Foundation

/// One telemetry sample: the phone's power at a moment, and what the app was doing then.
///
/// The server reads consecutive samples as intervals: between two samples the app was as the first says. So
/// battery drain per active hour is the level lost across intervals that were active and unplugged, and time in
/// degraded mode is the length of the intervals that began degraded.
public struct DeviceSample: Codable, Sendable, Hashable {
    /// When the sample was taken, on the device's clock.
    public var at: Date
    /// The battery's charge from 0 to 1, or nil when unknown.
    public var batteryLevel: Double?
    /// Whether the phone was on its battery.
    public var batteryState: BatteryState
    /// How hot the phone was.
    public var thermalState: ThermalState
    /// True in Low Power Mode.
    public var lowPower: Bool
    /// True while the app was doing its job: a driver online, a rider watching a trip.
    public var active: Bool
    /// True while the driver's location policy was degraded (heat, Low Power, a cap); always false for riders.
    public var degraded: Bool

    /// Creates a sample.
    public init(
        at: Date, batteryLevel: Double?, batteryState: BatteryState, thermalState: ThermalState, lowPower: Bool,
        active: Bool, degraded: Bool
    ) {
        self.at = at
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.thermalState = thermalState
        self.lowPower = lowPower
        self.active = active
        self.degraded = degraded
    }

    /// A sample of `power` at `at`.
    public init(_ power: DevicePower, at: Date, active: Bool, degraded: Bool) {
        self.init(
            at: at, batteryLevel: power.batteryLevel, batteryState: power.batteryState, thermalState: power.thermal,
            lowPower: power.lowPower, active: active, degraded: degraded)
    }
}
