import Foundation
import HailNet

/// A new ES256 signing key written where a scaled deployment's nodes and clients read it, as `hail keys` writes
/// it: the PEM private key (mode 0600) that mints access tokens, and the JWKS of its public key that every node
/// is started with (`--jwks`). For benchmarks and tests that start `--postgres`/`--redis` nodes.
public struct DeploymentKey: Sendable {
    /// The PEM private key, mode 0600 (`hail token --private-key`).
    public let privateKeyPath: String
    /// The JWKS file of its public key (`hail server --jwks`).
    public let jwksPath: String
    /// Mints tokens every node of the deployment accepts.
    public let minter: JWTMinter

    /// Makes a key in `directory` (which must exist): `signing.pem` and `hail.jwks`; refuses to overwrite either.
    public static func create(in directory: String) throws(KeyProblem) -> DeploymentKey {
        let minter = JWTMinter(
            key: try SigningKey.generate(.es256), issuer: TokenRules.defaultIssuer,
            audience: TokenRules.defaultAudience)
        let privateKeyPath = (directory as NSString).appendingPathComponent("signing.pem")
        let jwksPath = (directory as NSString).appendingPathComponent("hail.jwks")
        do {
            try SecretFile.create(at: privateKeyPath, contents: minter.key.pem)
        } catch {
            throw KeyProblem(error.description)
        }
        guard !FileManager.default.fileExists(atPath: jwksPath),
            FileManager.default.createFile(
                atPath: jwksPath, contents: Data(JSONWebKeySet(keys: [minter.publicKey]).text.utf8))
        else { throw KeyProblem("cannot create \(jwksPath); check that it is new and its folder writable") }
        return DeploymentKey(privateKeyPath: privateKeyPath, jwksPath: jwksPath, minter: minter)
    }

    /// A token every node accepts, for `role` and `subject`, issued at `now` and valid for `lifetime` seconds.
    public func token(
        _ role: Role, _ subject: String, now: Date, lifetime: TimeInterval = JWTMinter.defaultLifetime
    ) -> String {
        minter.mint(role: role, subject: subject, now: now, lifetime: lifetime)
    }
}
