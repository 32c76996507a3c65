#if canImport(CoreLocation)
    import Foundation
    import HailCore

    /// Feeds the phone's thermal state and Low Power Mode into a `DriverModel` as they change. A thin
    /// adapter: what heat and Low Power do to the policy is decided by `LocationPolicy`.
    @MainActor
    public final class DevicePowerObserver {
        private var observers: [any NSObjectProtocol] = []

        /// Starts observing for `model`, applying the current state at once.
        public init(model: DriverModel) {
            Self.apply(to: model)
            let center = NotificationCenter.default
            for name in [ProcessInfo.thermalStateDidChangeNotification, .NSProcessInfoPowerStateDidChange] {
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
            model.setThermal(ThermalState(info.thermalState))
            model.setLowPower(info.isLowPowerModeEnabled)
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
#endif
