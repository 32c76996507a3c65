/// A whole HTTP response as `HTTPResponseParser` read it.
struct HTTPResponseParts: Equatable {
    /// The status code.
    var status: Int
    /// The header fields in the order they came.
    var headers: [(name: String, value: String)]
    /// The body, unchunked.
    var body: [UInt8]
    /// True when the connection may carry the next request: HTTP/1.1 without `Connection: close` (or 1.0 with
    /// keep-alive), a body framed by its length or chunks, and nothing more sent after it.
    var reusable: Bool

    static func == (left: HTTPResponseParts, right: HTTPResponseParts) -> Bool {
        left.status == right.status && left.body == right.body && left.reusable == right.reusable
            && left.headers.map(\.name) == right.headers.map(\.name)
            && left.headers.map(\.value) == right.headers.map(\.value)
    }
}
