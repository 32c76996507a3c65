import Foundation
import HailNet
import HailProtocol

/// What a client of a server mints access tokens with: the private key of the server's key set (JWTs), or, for
/// the embedded demo only, the server's secret (`hail1` tokens).
public enum TokenSigner: Sendable {
    /// JWTs signed with a private key whose public key is in the server's `--jwks`.
    case jwt(JWTMinter)
    /// `hail1` tokens signed with the server's secret: a server without `--jwks` (the embedded demo).
    case secret(TokenAuthority)

    /// The signer the file at `path` holds: a PEM private key (`hail keys` writes one) signs JWTs with `issuer`
    /// and `audience`; a secret file signs `hail1` tokens. Either must be private (mode 0600).
    public static func load(
        path: String, issuer: String = TokenRules.defaultIssuer, audience: String = TokenRules.defaultAudience
    ) throws(KeyProblem) -> TokenSigner {
        let text: String
        do {
            text = try SecretFile.read(path, what: "the signing key or secret file")
        } catch {
            throw KeyProblem(error.description)
        }
        if text.contains("-----BEGIN") {
            do {
                return .jwt(JWTMinter(key: try SigningKey(pem: text), issuer: issuer, audience: audience))
            } catch {
                throw KeyProblem("\(path): \(error.description)")
            }
        }
        do {
            return .secret(TokenAuthority(authenticator: HMACAuthenticator(secret: try ServerSecret.load(at: path))))
        } catch {
            throw KeyProblem(error.description)
        }
    }

    /// A token for `role` and `subject`, issued at `now` and valid for `lifetime` seconds.
    public func mint(role: Role, subject: String, now: Date, lifetime: TimeInterval = JWTMinter.defaultLifetime)
        -> String
    {
        switch self {
        case .jwt(let minter):
            return minter.mint(role: role, subject: subject, now: now, lifetime: lifetime)
        case .secret(let authority):
            let issued = Int64(now.timeIntervalSince1970.rounded(.down))
            return authority.mint(AccessToken(role: role, sub: subject, exp: issued + Int64(lifetime), iat: issued))
        }
    }
}
