import CCurl
import Foundation
import HailServer

/// The team's APNs auth key (an `AuthKey_<KEYID>.p8` file): an ECDSA P-256 private key that signs provider
/// tokens with ES256 through OpenSSL.
public final class APNsSigningKey: @unchecked Sendable {
    // The EVP_PKEY is never changed after init, and OpenSSL 3 lets threads sign with one key at once:
    // nothing else protects it.
    private let key: OpaquePointer

    /// Reads a PEM private key; throws when the text holds none or it is not on P-256.
    public init(pem: String) throws(APNsKeyError) {
        let bytes = Array(pem.utf8)
        guard let key = bytes.withUnsafeBytes({ hail_pem_private_key($0.baseAddress, Int32($0.count)) }) else {
            throw APNsKeyError("it holds no PEM private key (an APNs .p8 begins with -----BEGIN PRIVATE KEY-----)")
        }
        guard hail_key_is_p256(key) == 1 else {
            EVP_PKEY_free(key)
            throw APNsKeyError("its key is not an elliptic-curve P-256 key, which ES256 needs")
        }
        self.key = key
    }

    /// Reads the key file at `path`, with an error that names the file and what is wrong with it.
    public static func load(path: String) throws(APNsKeyError) -> APNsSigningKey {
        guard FileManager.default.fileExists(atPath: path) else {
            throw APNsKeyError("there is no APNs key file '\(path)'")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw APNsKeyError("the APNs key file '\(path)' cannot be read") }
        do {
            return try APNsSigningKey(pem: text)
        } catch {
            throw APNsKeyError("the APNs key file '\(path)' is not usable: \(error.message)")
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// The ES256 signature of `message`: `r || s`, 64 bytes.
    public func sign(_ message: [UInt8]) throws(APNsKeyError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        let status = message.withUnsafeBytes { bytes in
            signature.withUnsafeMutableBufferPointer { out in
                hail_es256_sign(key, bytes.baseAddress, bytes.count, out.baseAddress)
            }
        }
        guard status == 0 else { throw APNsKeyError("OpenSSL could not sign with the APNs key") }
        return signature
    }

    /// A provider token: the JWT for `keyID` and `teamID` issued at `issuedAt`, signed with this key.
    public func providerToken(keyID: String, teamID: String, issuedAt: Date) throws(APNsKeyError) -> String {
        let input = APNsJWT.signingInput(keyID: keyID, teamID: teamID, issuedAt: issuedAt)
        return APNsJWT.token(signingInput: input, signature: try sign(Array(input.utf8)))
    }
}

/// An APNs key that cannot be used, and why.
public struct APNsKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
