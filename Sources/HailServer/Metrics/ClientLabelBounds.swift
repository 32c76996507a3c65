import HailProtocol
import Synchronization

/// Keeps the metric labels a client controls (its `X-Hail-Client` header: app, version, device) to a bounded set,
/// so no client can grow the number of series (memory, scrape size) by sending new values.
///
/// The app must be one of `knownApps`; a version must look like one (`1.4.0`, `2.0.0-beta.1`) and a device like a
/// hardware model (`iPhone15,2`); the first `maximumVersions` versions and `maximumDevices` devices seen are kept
/// and any later new one is counted as `other`, as is anything malformed. A missing part is `unknown`. So each
/// client-labelled metric has at most (apps + 2) x (versions + 2) x (devices + 2) series per other label.
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
    private let admitted = Mutex<(versions: Set<String>, devices: Set<String>)>(([], []))

    /// Bounds admitting `knownApps` and the first `maximumVersions` versions and `maximumDevices` devices.
    public init(knownApps: Set<String> = hailApps, maximumVersions: Int = 32, maximumDevices: Int = 64) {
        self.knownApps = knownApps
        self.maximumVersions = maximumVersions
        self.maximumDevices = maximumDevices
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
