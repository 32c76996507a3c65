import Foundation

/// The JSON body of every error response: `{"error": {"code", "message", "field"?, "activeTripID"?}}`.
public struct ErrorBody: Sendable, Hashable, Codable {
    /// The error it carries.
    public var error: APIError

    /// Wraps an error.
    public init(error: APIError) { self.error = error }
}

extension APIError {
    /// The response body for this error, with sorted keys.
    public var jsonBody: Data {
        // An APIError is strings only, so encoding cannot fail; the fallback keeps this non-throwing.
        (try? HailJSON.encode(ErrorBody(error: self))) ?? Data(#"{"error":{"code":"internal","message":""}}"#.utf8)
    }
}
