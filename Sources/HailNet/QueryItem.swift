/// One decoded `name=value` pair of a URL query.
public struct QueryItem: Sendable, Equatable {
    /// The decoded name.
    public var name: String
    /// The decoded value (empty when the item had no `=`).
    public var value: String

    /// A query item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
