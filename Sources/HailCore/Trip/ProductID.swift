/// The kind of ride the rider asks for (`"economy"`, `"xl"`), a string on the wire.
public struct ProductID: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The identifier as it appears in JSON.
    public let rawValue: String

    /// Wraps any identifier; the server decides which it sells.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The everyday car.
    public static let economy = ProductID(rawValue: "economy")
    /// A larger car for up to six riders.
    public static let xl = ProductID(rawValue: "xl")

    /// Creates the identifier from its wire string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the identifier as a bare string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw identifier.
    public var description: String { rawValue }
}
