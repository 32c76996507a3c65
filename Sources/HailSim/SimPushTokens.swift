import Foundation

/// The APNs tokens a simulated rider's phone registers, as iOS would hand them to the app: one device token per
/// rider and one Live Activity push token per trip, 32 bytes each.
///
/// They are derived from the ids rather than drawn from the rider's random stream, so registering them changes
/// nothing else a seeded city does, and a test (or an APNs stand-in's log) can tell whose push a request was.
public enum SimPushTokens {
    /// The device token of the rider `riderID` (`sim-rider-3`).
    public static func device(riderID: String) -> Data { token("device:" + riderID) }

    /// The push token of the Live Activity a rider's app starts for `tripID`.
    public static func liveActivity(tripID: String) -> Data { token("activity:" + tripID) }

    /// 32 bytes from four FNV-1a hashes of `text`, each with its own salt.
    private static func token(_ text: String) -> Data {
        var bytes = Data(capacity: 32)
        for salt in UInt8(0)..<4 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in [salt] + Array(text.utf8) {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            withUnsafeBytes(of: hash.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }
}
