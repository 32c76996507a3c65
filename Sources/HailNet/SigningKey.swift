import CLibWebSockets

/// A private key that signs tokens (ES256 on P-256 or RS256), read from PEM or made new by OpenSSL.
public final class SigningKey: @unchecked Sendable {
    // The EVP_PKEY is never changed after init; each signature gets its own digest context, so concurrent
    // signing with one key is safe in OpenSSL 3 without a lock.
    private let key: OpaquePointer
    /// The algorithm this key signs with.
    public let algorithm: SignatureAlgorithm

    private init(key: OpaquePointer) throws(KeyProblem) {
        switch hail_pkey_kind(key) {
        case 1: algorithm = .es256
        case 2:
            algorithm = .rs256
            guard hail_pkey_bits(key) >= SignatureAlgorithm.minimumRSABits else {
                hail_pkey_free(key)
                throw KeyProblem("the RSA key has \(hail_pkey_bits(key)) bits; at least 2048 are needed")
            }
        default:
            hail_pkey_free(key)
            throw KeyProblem("the key is neither an EC key on P-256 nor an RSA key")
        }
        self.key = key
    }

    deinit { hail_pkey_free(key) }

    /// The private key in `pem` (PKCS #8 `BEGIN PRIVATE KEY`, or `BEGIN EC/RSA PRIVATE KEY`).
    public convenience init(pem: String) throws(KeyProblem) {
        let bytes = Array(pem.utf8)
        let read = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { hail_pkey_read_private_pem($0.baseAddress, $0.count) }
        }
        guard let read else { throw KeyProblem("the file holds no PEM private key") }
        try self.init(key: read)
    }

    /// A new key pair for `algorithm` (P-256, or RSA of 2048 bits).
    public static func generate(_ algorithm: SignatureAlgorithm) throws(KeyProblem) -> SigningKey {
        let made = hail_pkey_generate(algorithm.isEllipticCurve ? 1 : 2, UInt32(SignatureAlgorithm.minimumRSABits))
        guard let made else { throw KeyProblem("OpenSSL could not generate a \(algorithm.rawValue) key") }
        return try SigningKey(key: made)
    }

    /// The private key as PKCS #8 PEM.
    public var pem: String {
        var buffer = [CChar](repeating: 0, count: 8192)
        let length = buffer.withUnsafeMutableBufferPointer { hail_pkey_private_pem(key, $0.baseAddress, $0.count) }
        // Writing a valid key to memory fails only when libcrypto is broken; 8 KiB holds RSA up to 4096 bits.
        precondition(length > 0 && length <= buffer.count, "HailNet: OpenSSL could not write the key as PEM")
        return String(decoding: buffer[0..<Int(length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The public half as a JWK's members, base64url-free bytes: `x`, `y` for EC; `n`, `e` for RSA.
    public var publicParameters: [String: [UInt8]] {
        switch algorithm {
        case .es256: ["x": parameter(hail_param_ec_x(), pad: 32), "y": parameter(hail_param_ec_y(), pad: 32)]
        case .rs256: ["n": parameter(hail_param_rsa_n(), pad: 0), "e": parameter(hail_param_rsa_e(), pad: 0)]
        }
    }

    /// The JWS signature (r || s for ES256) of `message`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1024)
        let length = message.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer {
                hail_pkey_sign_sha256(
                    key, algorithm.isEllipticCurve ? 1 : 0, input.bindMemory(to: UInt8.self).baseAddress, input.count,
                    $0.baseAddress, $0.count)
            }
        }
        // Signing in memory with a key OpenSSL accepted fails only when libcrypto is broken.
        precondition(length > 0, "HailNet: OpenSSL could not sign")
        return Array(out[0..<Int(length)])
    }

    private func parameter(_ name: UnsafePointer<CChar>?, pad: Int32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1024)
        let length = out.withUnsafeMutableBufferPointer { hail_pkey_bn_param(key, name, $0.baseAddress, $0.count, pad) }
        return length > 0 ? Array(out[0..<Int(length)]) : []
    }
}
