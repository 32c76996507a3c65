import Foundation
import HailNet
import Synchronization

/// The public keys in force, read from a JWKS file and read again on SIGHUP and at an interval: a key rotates by
/// adding the new one to the file (tokens of both verify), moving the issuer to it, and dropping the old one once
/// its last token has expired. A file that cannot be read or has one bad key changes nothing.
public final class TokenKeyRing: Sendable {
    /// The JWKS file, nil for keys given in code (tests).
    public let path: String?
    private let keys: Mutex<(generation: Int, keys: [String: TokenKey])>

    /// A ring holding `keys`, not backed by a file.
    public init(keys: [String: TokenKey]) {
        self.path = nil
        self.keys = Mutex((0, keys))
    }

    /// A ring read from the JWKS file at `path`, or why it cannot be.
    public init(path: String) throws(KeyProblem) {
        self.path = path
        self.keys = Mutex((0, try Self.read(path)))
    }

    /// The keys in force, by id.
    public var current: [String: TokenKey] { keys.withLock { $0.keys } }

    /// The keys in force and their generation, which every replacement moves on (what a signature verified with
    /// an older generation's keys no longer vouches for).
    var snapshot: (generation: Int, keys: [String: TokenKey]) { keys.withLock { $0 } }

    /// Replaces the keys (tests, and the reload).
    public func replace(with fresh: [String: TokenKey]) {
        keys.withLock { $0 = ($0.generation + 1, fresh) }
    }

    /// Reads the file again; the ids now in force, or the problem (the keys in force kept).
    @discardableResult
    public func reload() throws(KeyProblem) -> [String] {
        guard let path else { throw KeyProblem("there is no key set file to read again") }
        let fresh = try Self.read(path)
        replace(with: fresh)
        return fresh.keys.sorted()
    }

    private static func read(_ path: String) throws(KeyProblem) -> [String: TokenKey] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyProblem("cannot read the key set \(path); check the path (hail keys writes one)")
        }
        do {
            return try JSONWebKeySet.tokenKeys(from: data)
        } catch {
            throw KeyProblem("the key set \(path) is refused: \(error.description)")
        }
    }
}
