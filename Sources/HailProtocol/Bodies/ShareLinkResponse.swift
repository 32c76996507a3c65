import Foundation

/// The answer to `POST /v1/trips/{id}/share`: a link that shows one trip to anyone, until it expires.
public struct ShareLinkResponse: Codable, Sendable, Hashable {
    /// The share page, `https://host/share/{token}`.
    public var url: URL
    /// The token in the link; it reads this one trip and nothing else.
    public var token: String
    /// When the link stops working, in server time.
    public var expiresAt: Date

    /// Creates a share link.
    public init(url: URL, token: String, expiresAt: Date) {
        self.url = url
        self.token = token
        self.expiresAt = expiresAt
    }
}
