import Foundation
import HailNet
import HailServer

/// `hail token`: mints an access token, a JWT signed with a private key, or for a server without a key set a
/// `hail1` token signed with its secret.
enum TokenCommand {
    static let usage = """
        usage: hail token --role rider|driver|operator --subject ID [--ttl SECONDS]
                          [--secret-file ./hail.secret | --private-key FILE [--kid KID]]
                          [--issuer hail] [--audience hail]

        Prints an access token for the given role and account id, valid for --ttl seconds (default 3600, one
        hour; at most 86400). Send it as `Authorization: Bearer <token>` (browsers only: `?access_token=<token>`).

          --private-key  a PEM private key (`hail keys` writes one): the token is a JWT (ES256 or RS256) with
                         --kid (default the key's RFC 7638 thumbprint, as `hail keys` names it), --issuer and
                         --audience (default hail), for a server started with --jwks
          --secret-file  the server's secret file (default ./hail.secret): a `hail1` token for a server without
                         --jwks (the embedded demo); a file holding a PEM private key mints a JWT as above

        In production the operator's backend mints the tokens (docs/DEPLOY.md, "Access tokens"); this command is
        for development, scripts and tests.
        """

    static func run(_ arguments: [String]) throws(UsageError) {
        let args = try Arguments(
            arguments,
            options: [
                "--role", "--subject", "--secret-file", "--ttl", "--private-key", "--kid", "--issuer", "--audience",
            ], flags: [])
        guard let roleName = args["--role"] else { throw UsageError("--role is required (rider, driver or operator)") }
        guard let role = Role(rawValue: roleName), role != .share else {
            throw UsageError(
                "--role must be rider, driver or operator, not '\(roleName)' (share tokens come from POST /v1/trips/{id}/share)"
            )
        }
        guard let subject = args["--subject"], !subject.isEmpty, subject.count <= 128 else {
            throw UsageError("--subject is required: the rider's or driver's account id (1 to 128 characters)")
        }
        let ttl = try args.integer("--ttl", default: 3600, in: 1...86_400)
        if args["--private-key"] != nil, args["--secret-file"] != nil {
            throw UsageError("give --private-key or --secret-file, not both")
        }
        let path = args["--private-key"] ?? args["--secret-file"] ?? "hail.secret"
        let text: String
        do {
            text = try SecretFile.read(path, what: args["--private-key"] != nil ? "the private key" : "the secret file")
        } catch {
            throw UsageError(
                error.description
                    + (args["--private-key"] == nil
                        ? "; run `hail server` once to create it, or pass --secret-file" : ""))
        }
        let now = Date()
        let claims = AccessToken(
            role: role, sub: subject, exp: Int64(now.timeIntervalSince1970) + Int64(ttl),
            iat: Int64(now.timeIntervalSince1970))
        if args["--private-key"] != nil || text.contains("-----BEGIN") {
            let key: SigningKey
            do {
                key = try SigningKey(pem: text)
            } catch {
                throw UsageError("\(path): \(error.description)")
            }
            let minter = JWTMinter(
                key: key, keyID: args["--kid"], issuer: args["--issuer"] ?? TokenRules.defaultIssuer,
                audience: args["--audience"] ?? TokenRules.defaultAudience)
            print(minter.mint(claims))
            return
        }
        for option in ["--kid", "--issuer", "--audience"] where args[option] != nil {
            throw UsageError("\(option) is for JWTs: pass --private-key FILE")
        }
        let secret: [UInt8]
        do {
            secret = try ServerSecret.load(at: path)
        } catch {
            throw UsageError(error.description)
        }
        print(TokenAuthority(authenticator: HMACAuthenticator(secret: secret)).mint(claims))
    }
}
