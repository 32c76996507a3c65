/// Builds the raw bytes of an HTTP/1.1 request once, so the load loop only writes them.
enum HTTPRequestBytes {
    /// `method path` with a Host header, `headers`, and a Content-Length body when `body` is given.
    static func make(
        method: String, path: String, authority: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }
}
