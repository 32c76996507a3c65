#if canImport(CoreLocation)
    import Foundation
    import HailCore
    #if canImport(UIKit)
        import UIKit
    #endif

    /// Feeds the phone's thermal state, Low Power Mode and (on iOS) battery level and state into a `DriverModel` as
    /// they change. A thin adapter: what heat and Low Power do to the policy is decided by `LocationPolicy`, and the
    /// model samples all of it for telemetry (`POST /v1/telemetry`).
    @MainActor
    public final class DevicePowerObserver {
        private var observers: [any NSObjectProtocol] = []

        /// Starts observing for `model`, applying the current state at once.
        public init(model: DriverModel) {
            var names = [ProcessInfo.thermalStateDidChangeNotification, .NSProcessInfoPowerStateDidChange]
            #if canImport(UIKit)
                UIDevice.current.isBatteryMonitoringEnabled = true
                names += [UIDevice.batteryLevelDidChangeNotification, UIDevice.batteryStateDidChangeNotification]
            #endif
            Self.apply(to: model)
            let center = NotificationCenter.default
            for name in names {
                observers.append(
                    center.addObserver(forName: name, object: nil, queue: .main) { [weak model] _ in
                        guard let target = model else { return }
                        Task { @MainActor in Self.apply(to: target) }
                    })
            }
        }

        /// Stops observing.
        public func stop() {
            for observer in observers { NotificationCenter.default.removeObserver(observer) }
            observers = []
        }

        private static func apply(to model: DriverModel) {
            let info = ProcessInfo.processInfo
            var power = DevicePower(thermal: ThermalState(info.thermalState), lowPower: info.isLowPowerModeEnabled)
            #if canImport(UIKit)
                let device = UIDevice.current
                // -1 while monitoring is off or the level is unknown (the Simulator).
                power.batteryLevel = device.batteryLevel < 0 ? nil : Double(device.batteryLevel)
                power.batteryState = BatteryState(device.batteryState)
            #endif
            model.devicePowerChanged(power)
        }
    }

    extension ThermalState {
        /// The same state as ProcessInfo's, case for case; an unknown future state counts as critical.
        public init(_ state: ProcessInfo.ThermalState) {
            switch state {
            case .nominal: self = .nominal
            case .fair: self = .fair
            case .serious: self = .serious
            case .critical: self = .critical
            @unknown default: self = .critical
            }
        }
    }

    #if canImport(UIKit)
        extension BatteryState {
            /// The same state as UIDevice's, case for case; an unknown future state counts as unknown.
            public init(_ state: UIDevice.BatteryState) {
                switch state {
                case .unplugged: self = .unplugged
                case .charging: self = .charging
                case .full: self = .full
                case .unknown: self = .unknown
                @unknown default: self = .unknown
                }
            }
        }
    #endif
#endif
