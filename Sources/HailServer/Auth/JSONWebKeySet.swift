import Foundation
import HailNet
import HailProtocol

/// A JWKS document (RFC 7517 section 5): the public keys tokens may be signed with, each named by `kid`.
public struct JSONWebKeySet: Codable, Sendable, Hashable {
    /// The keys.
    public var keys: [JSONWebKey]

    /// A set of `keys`.
    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// The set in `data`, turned into keys by id; every key must be usable and ids unique, else the problem names
    /// the key.
    public static func tokenKeys(from data: Data) throws(KeyProblem) -> [String: TokenKey] {
        let set: JSONWebKeySet
        do {
            set = try JSONDecoder().decode(JSONWebKeySet.self, from: data)
        } catch {
            throw KeyProblem("it is not a JWKS document ({\"keys\": [...]}): \(error)")
        }
        guard !set.keys.isEmpty else { throw KeyProblem("it holds no keys") }
        var keys: [String: TokenKey] = [:]
        for (index, jwk) in set.keys.enumerated() {
            guard let kid = jwk.kid, !kid.isEmpty else { throw KeyProblem("key \(index + 1) has no kid") }
            guard keys[kid] == nil else { throw KeyProblem("kid \"\(kid)\" appears twice") }
            do {
                keys[kid] = TokenKey(id: kid, key: try jwk.verificationKey())
            } catch {
                throw KeyProblem("key \"\(kid)\": \(error.description)")
            }
        }
        return keys
    }

    /// The JSON text of the set, one key per line as `hail keys` writes it.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self) + "\n"
    }
}
