import CLibWebSockets

/// Cryptographically secure random bytes (OpenSSL's RAND_bytes, the generator under lws).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let status = out.withUnsafeMutableBufferPointer { hail_random_bytes($0.baseAddress, Int32(count)) }
        // RAND_bytes only fails when the OS entropy source is unusable; continuing would be unsafe.
        precondition(status == 0, "HailNet: the system random generator failed")
        return out
    }

    /// `byteCount` random bytes as lower-case hex (ids, nonces).
    public static func hex(byteCount: Int) -> String {
        HMAC.hex(bytes(byteCount))
    }
}
