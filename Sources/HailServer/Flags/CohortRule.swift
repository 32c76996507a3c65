import HailCore
import HailProtocol

/// One cohort of a flags file: who it matches, and the flags it sets for them.
///
/// Every `match` key given must hold (and); a key's list of patterns holds when any does (or). A part the client
/// did not send counts as the empty string, so only `*` matches it. `percent` takes a stable share of the
/// matching callers, by a hash of the rule's name and the caller's subject: the same people stay in as the share
/// grows, on every node.
public struct CohortRule: Sendable, Hashable {
    /// The cohort's name, unique in the file; `GET /v1/config` lists the names that matched.
    public var name: String
    /// The line the cohort starts on.
    public var line: Int
    /// The roles it matches; nil for any.
    public var roles: Set<Role>?
    /// The apps (`hail-rider`), as patterns; nil for any.
    public var apps: [GlobPattern]?
    /// The versions (`1.4.*`, `*-beta*`); nil for any.
    public var versions: [GlobPattern]?
    /// The hardware models (`iPhone13,*`); nil for any.
    public var devices: [GlobPattern]?
    /// The regions by name; nil for anywhere (a caller in no region then matches too).
    public var regions: Set<String>?
    /// The share of matching callers taken, 0 to 100; nil for all.
    public var percent: Double?
    /// What it sets.
    public var overrides: FlagOverrides

    /// Creates a rule.
    public init(
        name: String, line: Int = 0, roles: Set<Role>? = nil, apps: [GlobPattern]? = nil,
        versions: [GlobPattern]? = nil, devices: [GlobPattern]? = nil, regions: Set<String>? = nil,
        percent: Double? = nil, overrides: FlagOverrides
    ) {
        self.name = name
        self.line = line
        self.roles = roles
        self.apps = apps
        self.versions = versions
        self.devices = devices
        self.regions = regions
        self.percent = percent
        self.overrides = overrides
    }

    /// True when the rule needs the caller's region to decide.
    public var needsRegion: Bool { regions != nil }

    /// True when `key`, in `region`, is in this cohort.
    public func matches(_ key: CohortKey, region: String?) -> Bool {
        if let roles, !roles.contains(key.role) { return false }
        if let apps, !Self.any(apps, key.client?.app ?? "") { return false }
        if let versions, !Self.any(versions, key.client?.version ?? "") { return false }
        if let devices, !Self.any(devices, key.client?.deviceModel ?? "") { return false }
        if let regions {
            guard let region, regions.contains(region) else { return false }
        }
        if let percent { return Self.bucket(name, key.subject ?? "") < percent }
        return true
    }

    private static func any(_ patterns: [GlobPattern], _ value: String) -> Bool {
        patterns.contains { $0.matches(value) }
    }

    /// Where `subject` falls for rule `name`, from 0 up to (not including) 100, in hundredths: FNV-1a, stable
    /// across processes and nodes (Swift's `Hasher` is seeded per process).
    static func bucket(_ name: String, _ subject: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 + [0] + subject.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Double(hash % 10_000) / 100
    }
}
