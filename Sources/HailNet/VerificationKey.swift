import CLibWebSockets

/// A public key that checks token signatures: a P-256 point (ES256) or an RSA modulus and exponent (RS256),
/// made from a JWK's members by OpenSSL 3 (`EVP_PKEY_fromdata`), which refuses a point that is not on the curve.
public final class VerificationKey: @unchecked Sendable {
    // The EVP_PKEY is never changed after init; OpenSSL 3 allows concurrent verifications with one key (each call
    // has its own digest context), so sharing the handle across threads needs no lock.
    private let key: OpaquePointer
    /// The one algorithm this key verifies.
    public let algorithm: SignatureAlgorithm

    private init(key: OpaquePointer, algorithm: SignatureAlgorithm) {
        self.key = key
        self.algorithm = algorithm
    }

    deinit { hail_pkey_free(key) }

    /// The P-256 public key at (`x`, `y`), each 32 big-endian bytes.
    public static func ellipticCurveP256(x: [UInt8], y: [UInt8]) throws(KeyProblem) -> VerificationKey {
        let made = x.withUnsafeBytes { xBytes in
            y.withUnsafeBytes { yBytes in
                hail_pkey_ec_p256(
                    xBytes.bindMemory(to: UInt8.self).baseAddress, xBytes.count,
                    yBytes.bindMemory(to: UInt8.self).baseAddress, yBytes.count)
            }
        }
        guard let made else { throw KeyProblem("x and y are not a point on P-256 (32 bytes each)") }
        return VerificationKey(key: made, algorithm: .es256)
    }

    /// The RSA public key with big-endian `modulus` and `exponent`; at least 2048 bits.
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(KeyProblem) -> VerificationKey {
        guard !modulus.isEmpty, !exponent.isEmpty, exponent.count <= 8 else {
            throw KeyProblem("n and e must be non-empty and e at most 8 bytes")
        }
        let made = modulus.withUnsafeBytes { nBytes in
            exponent.withUnsafeBytes { eBytes in
                hail_pkey_rsa(
                    nBytes.bindMemory(to: UInt8.self).baseAddress, nBytes.count,
                    eBytes.bindMemory(to: UInt8.self).baseAddress, eBytes.count)
            }
        }
        guard let made else { throw KeyProblem("n and e are not an RSA public key") }
        let key = VerificationKey(key: made, algorithm: .rs256)
        guard hail_pkey_bits(made) >= SignatureAlgorithm.minimumRSABits else {
            throw KeyProblem("the RSA key has \(hail_pkey_bits(made)) bits; at least 2048 are needed")
        }
        return key
    }

    /// True when `signature` (the JWS form) is this key's signature of `message` under `algorithm`; false for any
    /// other algorithm than the key's own.
    public func verifies(_ signature: [UInt8], of message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        guard algorithm == self.algorithm else { return false }
        return message.withUnsafeBytes { messageBytes in
            signature.withUnsafeBytes { signatureBytes in
                hail_pkey_verify_sha256(
                    key, algorithm.isEllipticCurve ? 1 : 0, messageBytes.bindMemory(to: UInt8.self).baseAddress,
                    messageBytes.count, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count)
            }
        } == 1
    }
}
