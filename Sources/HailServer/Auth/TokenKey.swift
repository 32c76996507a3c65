import HailNet

/// A verification key and the id (`kid`) tokens name it by.
public struct TokenKey: Sendable {
    /// The key id.
    public let id: String
    /// The public key.
    public let key: VerificationKey

    /// A key named `id`.
    public init(id: String, key: VerificationKey) {
        self.id = id
        self.key = key
    }
}
