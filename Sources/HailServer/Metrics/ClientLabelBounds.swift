import HailProtocol
import Synchronization

/// Keeps the metric labels a client controls (its `X-Hail-Client` header: app, version, device) to a bounded set,
/// so no client can grow the number of series (memory, scrape size) by sending new values.
///
/// The app must be one of `knownApps`; a version must look like one (`1.4.0`, `2.0.0-beta.1`) and a device like a
/// hardware model (`iPhone15,2`); the first `maximumVersions` versions and `maximumDevices` devices seen are kept
/// and any later new one is counted as `other`, as is anything malformed. A missing part is `unknown`. So each
/// client-labelled metric has at most (apps + 2) x (versions + 2) x (devices + 2) series per other label.
///
/// The design's numbers are segmented by version, device and region together (`segment(_:region:)`): there the
/// first `maximumSegments` combinations seen get their own series and any later one is `other` in all three, so
/// each segmented metric has at most `maximumSegments + 1` series per other label.
public final class ClientLabelBounds: Sendable {
    /// The app names Hail's clients send.
    public static let hailApps: Set<String> = ["hail-rider", "hail-driver", "hail-ride", "hail-sim"]

    /// The label value for anything not admitted.
    public static let other = "other"
    /// The label value for a part the client did not send.
    public static let unknown = "unknown"

    private let knownApps: Set<String>
    private let maximumVersions: Int
    private let maximumDevices: Int
    private let maximumSegments: Int
    private let admitted = Mutex<(versions: Set<String>, devices: Set<String>)>(([], []))
    private let admittedSegments = Mutex<Set<ClientSegment>>([])

    /// Bounds admitting `knownApps`, the first `maximumVersions` versions and `maximumDevices` devices, and the
    /// first `maximumSegments` combinations of version, device and region.
    public init(
        knownApps: Set<String> = hailApps, maximumVersions: Int = 32, maximumDevices: Int = 64,
        maximumSegments: Int = 256
    ) {
        self.knownApps = knownApps
        self.maximumVersions = maximumVersions
        self.maximumDevices = maximumDevices
        self.maximumSegments = maximumSegments
    }

    /// The bounded segment of a client in `region`: its version and device as `labels` admits them, the region's
    /// name (`unknown` when none, `other` when it does not look like a flags file's name), and the whole
    /// combination `other` once `maximumSegments` others have been seen.
    public func segment(_ client: ClientInfo?, region: String?) -> ClientSegment {
        let labels = labels(client)
        let regionLabel = region.map { Self.looksLikeName($0) ? $0 : Self.other } ?? Self.unknown
        let segment = ClientSegment(version: labels.version, device: labels.device, region: regionLabel)
        return admittedSegments.withLock { admitted in
            if admitted.contains(segment) { return segment }
            guard admitted.count < maximumSegments else { return ClientSegment.other }
            admitted.insert(segment)
            return segment
        }
    }

    /// A region's name as a flags file allows it: 1 to 32 letters, digits, `-` and `_`.
    static func looksLikeName(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }

    /// The bounded labels for what a client said about itself.
    public func labels(_ client: ClientInfo?) -> (app: String, version: String, device: String) {
        guard let client else { return (Self.unknown, Self.unknown, Self.unknown) }
        let app = knownApps.contains(client.app) ? client.app : Self.other
        let version = client.version.map { Self.looksLikeVersion($0) ? $0 : Self.other } ?? Self.unknown
        let device = client.deviceModel.map { Self.looksLikeDevice($0) ? $0 : Self.other } ?? Self.unknown
        let checkVersion = version != Self.unknown && version != Self.other
        let checkDevice = device != Self.unknown && device != Self.other
        guard checkVersion || checkDevice else { return (app, version, device) }
        return admitted.withLock { admitted in
            (
                app,
                checkVersion ? Self.admit(version, into: &admitted.versions, limit: maximumVersions) : version,
                checkDevice ? Self.admit(device, into: &admitted.devices, limit: maximumDevices) : device
            )
        }
    }

    private static func admit(_ value: String, into set: inout Set<String>, limit: Int) -> String {
        if set.contains(value) { return value }
        guard set.count < limit else { return other }
        set.insert(value)
        return value
    }

    /// `1`, `1.4`, `1.4.0`, with an optional `-label` or `+build` of letters, digits, `.` and `-`; at most 32
    /// characters.
    static func looksLikeVersion(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...32).contains(bytes.count), let first = bytes.first, isDigit(first) else { return false }
        var index = 0
        while index < bytes.count, isDigit(bytes[index]) || bytes[index] == UInt8(ascii: ".") { index += 1 }
        guard bytes[index - 1] != UInt8(ascii: ".") else { return false }
        guard index < bytes.count else { return true }
        guard bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+"), index + 1 < bytes.count
        else { return false }
        return bytes[(index + 1)...].allSatisfy {
            isDigit($0) || isLetter($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
    }

    /// A hardware model: letters, digits and `,` (`iPhone15,2`, `iPad13,4`, `terminal`), starting with a letter;
    /// at most 32 characters.
    static func looksLikeDevice(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...32).contains(bytes.count), isLetter(bytes[0]) else { return false }
        return bytes.allSatisfy { isDigit($0) || isLetter($0) || $0 == UInt8(ascii: ",") }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}

/// The version, device and region a design number is segmented by, each a bounded label value.
public struct ClientSegment: Sendable, Hashable {
    /// The app's version, `unknown` or `other`.
    public var version: String
    /// The hardware model, `unknown` or `other`.
    public var device: String
    /// The flags file's region name, `unknown` or `other`.
    public var region: String

    /// Creates a segment.
    public init(version: String, device: String, region: String) {
        self.version = version
        self.device = device
        self.region = region
    }

    /// Every part `other`: a combination past the bound.
    public static let other = ClientSegment(
        version: ClientLabelBounds.other, device: ClientLabelBounds.other, region: ClientLabelBounds.other)
}
