import CLibWebSockets

/// SHA-256 through OpenSSL (JWK thumbprints, RFC 7638).
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let status = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { hail_sha256(input.baseAddress, input.count, $0.baseAddress) }
        }
        // SHA-256 over memory cannot fail unless libcrypto is broken.
        precondition(status == 0, "HailNet: OpenSSL SHA-256 failed")
        return out
    }
}
