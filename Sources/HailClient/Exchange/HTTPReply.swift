import Foundation

/// The server's answer to an `HTTPCall`: whatever its status.
public struct HTTPReply: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields in the order they came; names as the server wrote them.
    public var headers: [(name: String, value: String)]
    /// The body, decoded from its framing (`Content-Length` or chunked).
    public var body: Data

    /// Creates a reply.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first field named `name` (any case), or nil.
    public func value(for name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
