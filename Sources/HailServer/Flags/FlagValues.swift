import HailCore
import HailProtocol

/// Every flag with a value: what one caller gets once the defaults and their cohorts' settings are applied.
public struct FlagValues: Sendable, Hashable {
    /// Riders: stream or poll, and the poll interval.
    public var liveStream: LiveStreamSetting
    /// The server's route provider for the cohort (estimates, road paths, ETAs): `graph` or `straight-line`.
    public var routeProvider: String
    /// Riders: where the shown ETA comes from.
    public var etaSource: EtaSource
    /// Drivers: the most their location hardware may be asked for; nil for no cap.
    public var locationPolicyCap: LocationPolicyCap?
    /// Riders: every trip they request needs the pickup PIN to start, whatever the request says.
    public var pickupPIN: Bool

    /// Creates values.
    public init(
        liveStream: LiveStreamSetting = .stream, routeProvider: String, etaSource: EtaSource = .roadGraph,
        locationPolicyCap: LocationPolicyCap? = nil, pickupPIN: Bool = false
    ) {
        self.liveStream = liveStream
        self.routeProvider = routeProvider
        self.etaSource = etaSource
        self.locationPolicyCap = locationPolicyCap
        self.pickupPIN = pickupPIN
    }

    /// These values with `overrides` applied on top.
    public func applying(_ overrides: FlagOverrides) -> FlagValues {
        var values = self
        if let liveStream = overrides.liveStream { values.liveStream = liveStream }
        if let routeProvider = overrides.routeProvider { values.routeProvider = routeProvider }
        if let etaSource = overrides.etaSource { values.etaSource = etaSource }
        if let cap = overrides.locationPolicyCap { values.locationPolicyCap = cap }
        if let pickupPIN = overrides.pickupPIN { values.pickupPIN = pickupPIN }
        return values
    }
}

/// The flags one cohort rule (or the file's `defaults`) sets; nil leaves a flag as it was.
public struct FlagOverrides: Sendable, Hashable {
    /// Stream or poll.
    public var liveStream: LiveStreamSetting?
    /// The route provider.
    public var routeProvider: String?
    /// The ETA source.
    public var etaSource: EtaSource?
    /// The location cap: `.some(nil)` lifts a cap set before (`"locationPolicyCap": null` in the file).
    public var locationPolicyCap: LocationPolicyCap??
    /// The pickup PIN requirement.
    public var pickupPIN: Bool?

    /// Creates overrides.
    public init(
        liveStream: LiveStreamSetting? = nil, routeProvider: String? = nil, etaSource: EtaSource? = nil,
        locationPolicyCap: LocationPolicyCap?? = nil, pickupPIN: Bool? = nil
    ) {
        self.liveStream = liveStream
        self.routeProvider = routeProvider
        self.etaSource = etaSource
        self.locationPolicyCap = locationPolicyCap
        self.pickupPIN = pickupPIN
    }
}
