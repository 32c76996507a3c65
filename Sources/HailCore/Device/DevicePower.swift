/// What the phone says about its power at one moment: battery, heat and Low Power Mode.
///
/// Apps hand it to their model as it changes (`DevicePowerObserver` on Apple platforms, a modelled battery in
/// the simulator); the model samples it for telemetry and, on the driver's phone, for the location policy.
public struct DevicePower: Codable, Sendable, Hashable {
    /// The battery's charge from 0 to 1, or nil when the platform cannot tell.
    public var batteryLevel: Double?
    /// Whether the phone is on its battery.
    public var batteryState: BatteryState
    /// How hot the phone is.
    public var thermal: ThermalState
    /// True in Low Power Mode.
    public var lowPower: Bool

    /// Creates a reading.
    public init(
        batteryLevel: Double? = nil, batteryState: BatteryState = .unknown, thermal: ThermalState = .nominal,
        lowPower: Bool = false
    ) {
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.thermal = thermal
        self.lowPower = lowPower
    }

    /// Nothing known: a cool phone of unknown charge.
    public static let unknown = DevicePower()
}
