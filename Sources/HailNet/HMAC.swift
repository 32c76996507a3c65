import CLibWebSockets

/// HMAC for token signing, through OpenSSL's libcrypto (never hand-written crypto).
///
/// lws 4.1.6 as packaged by Debian is built without LWS_WITH_GENCRYPTO, so `lws_genhmac_*` is absent;
/// the same OpenSSL that lws links is called directly. Comparison uses `lws_timingsafe_bcmp`.
public enum HMAC {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let status = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                out.withUnsafeMutableBufferPointer { outBytes in
                    hail_hmac_sha256(
                        keyBytes.baseAddress, keyBytes.count, messageBytes.baseAddress, messageBytes.count,
                        outBytes.baseAddress)
                }
            }
        }
        // HMAC with SHA-256 cannot fail for in-memory inputs unless libcrypto is broken.
        precondition(status == 0, "HailNet: OpenSSL HMAC-SHA256 failed")
        return out
    }

    /// HMAC-SHA256 of the UTF-8 bytes of `message` under the UTF-8 bytes of `key`.
    public static func sha256(key: String, message: String) -> [UInt8] {
        sha256(key: Array(key.utf8), message: Array(message.utf8))
    }

    /// Compares two MACs in time independent of where they differ; different lengths are unequal.
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                lws_timingsafe_bcmp(left.baseAddress, right.baseAddress, UInt32(left.count)) == 0
            }
        }
    }

    /// Lower-case hex of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
