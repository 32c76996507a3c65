import Synchronization

/// The claims of tokens whose signatures were verified lately, so a request pays for one signature check, not
/// two (the rate-limit gate and the API both read its token), and an app's next calls with the same token pay
/// none. Claims are checked against the clock on every use; an entry vouches only for the key set generation it
/// was verified under, so a key dropped from the set refuses its tokens at once. Bounded: when full it starts over.
final class VerifiedSignatures: Sendable {
    static let capacity = 4096
    private let entries = Mutex<[String: (generation: Int, claims: JWTClaims)]>([:])

    /// The claims `token` was verified to carry under key set `generation`, nil when not known.
    func claims(of token: String, generation: Int) -> JWTClaims? {
        entries.withLock { entries in
            guard let entry = entries[token], entry.generation == generation else { return nil }
            return entry.claims
        }
    }

    /// Notes that `token`'s signature verified under key set `generation`.
    func remember(_ token: String, claims: JWTClaims, generation: Int) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = (generation, claims)
        }
    }
}
