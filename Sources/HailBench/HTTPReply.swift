/// One HTTP response as the load generator needs it.
struct HTTPReply: Sendable {
    /// The status code.
    let status: Int
    /// The body bytes (chunked bodies already joined).
    let body: [UInt8]
    /// True when the server said it will close the connection after this response.
    let closes: Bool
}
