import Foundation
import HailServer

/// `hail token`: mints a bearer token signed with the server's secret.
enum TokenCommand {
    static let usage = """
        usage: hail token --role rider|driver|operator --subject ID [--secret-file ./hail.secret] [--ttl SECONDS]

        Prints a bearer token for the given role and account id, signed with the server's secret, valid for
        --ttl seconds (default 86400, one day). Send it as `Authorization: Bearer <token>`, or as
        `?access_token=<token>` on a WebSocket URL.
        """

    static func run(_ arguments: [String]) throws(UsageError) {
        let args = try Arguments(arguments, options: ["--role", "--subject", "--secret-file", "--ttl"], flags: [])
        guard let roleName = args["--role"] else { throw UsageError("--role is required (rider, driver or operator)") }
        guard let role = Role(rawValue: roleName), role != .share else {
            throw UsageError(
                "--role must be rider, driver or operator, not '\(roleName)' (share tokens come from POST /v1/trips/{id}/share)"
            )
        }
        guard let subject = args["--subject"], !subject.isEmpty, subject.count <= 128 else {
            throw UsageError("--subject is required: the rider's or driver's account id (1 to 128 characters)")
        }
        let ttl = try args.integer("--ttl", default: 86_400, in: 1...31_536_000)
        let secret: [UInt8]
        do {
            secret = try ServerSecret.load(at: args["--secret-file"] ?? "hail.secret")
        } catch {
            throw UsageError(error.description)
        }
        let now = Int64(Date().timeIntervalSince1970)
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: secret))
        print(tokens.mint(AccessToken(role: role, sub: subject, exp: now + Int64(ttl), iat: now)))
    }
}
