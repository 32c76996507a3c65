import Foundation
import HailProtocol
import HailServer

extension ServerCommand {
    /// The options of `hail server` about access tokens and the metrics token.
    static let tokenOptions = [
        "--jwks", "--token-issuer", "--token-audience", "--token-leeway-seconds", "--jwks-reload-seconds",
        "--metrics-token-file",
    ]

    /// Reads the key set and the metrics token into `options`; the interval the key set is read again at, nil
    /// without one. Any problem stops the start with what to fix.
    static func configureTokens(_ options: inout BackendServer.Options, _ args: Arguments) throws(UsageError)
        -> Duration?
    {
        if let path = args["--metrics-token-file"] {
            let text: String
            do {
                text = try SecretFile.read(path, what: "the metrics token file").trimmingCharacters(
                    in: .whitespacesAndNewlines)
            } catch {
                throw UsageError("--metrics-token-file: \(error.description)")
            }
            guard text.utf8.count >= 32, !text.contains(where: \.isWhitespace) else {
                throw UsageError("--metrics-token-file \(path) must hold one token of at least 32 characters")
            }
            options.configuration.metricsToken = text
        }
        guard let path = args["--jwks"] else {
            for option in tokenOptions where option != "--jwks" && option != "--metrics-token-file" {
                if args[option] != nil { throw UsageError("\(option) needs --jwks FILE") }
            }
            return nil
        }
        do {
            options.tokenKeys = try TokenKeyRing(path: path)
        } catch {
            throw UsageError("--jwks: \(error.description)")
        }
        let leeway = try seconds(args, "--token-leeway-seconds", in: 0...TokenRules.maximumLeeway)
        options.tokenRules = TokenRules(
            issuer: args["--token-issuer"] ?? TokenRules.defaultIssuer,
            audience: args["--token-audience"] ?? TokenRules.defaultAudience,
            leeway: leeway?.timeInterval ?? 60)
        return try seconds(args, "--jwks-reload-seconds", in: 1...86_400) ?? .seconds(60)
    }
}

extension Signals {
    /// Reads the key set again; logs `keys_reloaded` with the key ids in force when they changed (or `always`),
    /// `keys_rejected` with the problem when the file is refused (the keys in force kept). Whatever `--quiet` says.
    static func reloadKeys(_ services: ServerServices, always: Bool) {
        guard let ring = services.tokens.keyRing else { return }
        let before = ring.current.keys.sorted()
        var fields: [String: Any] = ["at": (try? WireDate.format(services.time.now())) ?? "", "path": ring.path ?? ""]
        do {
            let ids = try ring.reload()
            guard always || ids != before else { return }
            fields["event"] = "keys_reloaded"
            fields["kids"] = ids
        } catch {
            fields["event"] = "keys_rejected"
            fields["problem"] = error.description
            fields["kept"] = before
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        try? FileHandle.standardError.write(contentsOf: data + Data("\n".utf8))
    }
}
