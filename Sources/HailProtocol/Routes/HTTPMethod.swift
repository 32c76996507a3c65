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
    /// Asks what a resource supports (unused by API v1).
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// Partially updates a resource (unused by API v1).
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// Echoes the request back (never served: it would reflect credentials).
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// Opens a tunnel through a proxy (never served: Hail is no proxy).
    public static let connect = HTTPMethod(rawValue: "CONNECT")

    /// A safe read with a body (the HTTP QUERY method, IETF httpbis; unused by API v1).
    public static let query = HTTPMethod(rawValue: "QUERY")

    /// The methods of RFC 9110, PATCH (RFC 5789) and QUERY: one a path does not take is answered 405 with
    /// `Allow`, anything else 501.
    public static let standard: Set<HTTPMethod> = [
        .get, .head, .post, .put, .delete, .connect, .options, .trace, .patch, .query,
    ]

    /// The method token.
    public var description: String { rawValue }
}
