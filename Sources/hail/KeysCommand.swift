import Foundation
import HailNet
import HailServer

/// `hail keys`: makes a signing key pair and the JWKS a server verifies its tokens with.
enum KeysCommand {
    static let usage = """
        usage: hail keys --private-key FILE --jwks FILE [--alg ES256|RS256] [--kid KID]

        Makes a new key pair: the private key, PEM, in --private-key (created with mode 0600; an existing file is
        never overwritten), and its public key added to the JWKS file --jwks (created when missing; the keys
        already in it are kept, so old and new both verify while a key rotates). --kid names the key (default
        its RFC 7638 thumbprint, which `hail token --private-key` puts in each token). Start the server with
        --jwks FILE; after a rotation, send it SIGHUP (or wait for --jwks-reload-seconds).

        Rotation (docs/DEPLOY.md, "Access tokens"): add a new key here, let the servers read the set, sign new
        tokens with it, then remove the old key from the set once its last token has expired (an hour).
        """

    static func run(_ arguments: [String]) throws(UsageError) {
        let args = try Arguments(arguments, options: ["--private-key", "--jwks", "--alg", "--kid"], flags: [])
        guard let keyPath = args["--private-key"] else { throw UsageError("--private-key FILE is required") }
        guard let setPath = args["--jwks"] else { throw UsageError("--jwks FILE is required") }
        guard let algorithm = SignatureAlgorithm(rawValue: args["--alg"] ?? "ES256") else {
            throw UsageError("--alg must be ES256 or RS256, not '\(args["--alg"] ?? "")'")
        }
        guard !FileManager.default.fileExists(atPath: keyPath) else {
            throw UsageError("\(keyPath) already exists; a private key is never overwritten: choose another path")
        }
        var set = JSONWebKeySet(keys: [])
        if let data = FileManager.default.contents(atPath: setPath) {
            do {
                set = try JSONDecoder().decode(JSONWebKeySet.self, from: data)
            } catch {
                throw UsageError("\(setPath) is not a JWKS document: \(error)")
            }
        }
        let key: SigningKey
        do {
            key = try SigningKey.generate(algorithm)
        } catch {
            throw UsageError(error.description)
        }
        let jwk = JSONWebKey(publicOf: key, kid: args["--kid"])
        guard !set.keys.contains(where: { $0.kid == jwk.kid }) else {
            throw UsageError("\(setPath) already has a key with kid \(jwk.kid ?? ""); pass another --kid")
        }
        set.keys.append(jwk)
        do {
            try SecretFile.create(at: keyPath, contents: key.pem)
        } catch {
            throw UsageError(error.description)
        }
        // The set is public, but a half-written one would stop every node's next reload: write it aside, then
        // rename it over the old one.
        let temporary = setPath + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(set.text.utf8)),
            rename(temporary, setPath) == 0
        else {
            unlink(temporary)
            throw UsageError("cannot write \(setPath); check that its folder exists and is writable")
        }
        print(
            "kid \(jwk.kid ?? "")  \(algorithm.rawValue)  private key \(keyPath)  key set \(setPath) (\(set.keys.count) keys)"
        )
    }
}
