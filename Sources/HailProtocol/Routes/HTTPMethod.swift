/// An HTTP request method, as the request line spells it.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method token, upper case.
    public let rawValue: String

    /// Wraps a method token, upper-casing it so `get` and `GET` compare equal.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// Reads a resource; also the method of a WebSocket upgrade.
    public static let get = HTTPMethod(rawValue: "GET")
    /// Creates or acts.
    public static let post = HTTPMethod(rawValue: "POST")
    /// Replaces a resource (`PUT /v1/devices/me`).
    public static let put = HTTPMethod(rawValue: "PUT")
    /// Deletes a resource (`DELETE /v1/devices/me`).
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// Reads headers only.
    public static let head = HTTPMethod(rawValue: "HEAD")

    /// The method token.
    public var description: String { rawValue }
}
