import Foundation

/// A request whose method libwebsockets does not know (TRACE, or any other token): lws would answer it with an
/// HTML 403 of its own, so it hands the connection over as a raw socket instead, and HailNet reads the request line
/// here, lets the handler answer like any request (405 with `Allow` for a path that exists, 501 or 404 otherwise)
/// and writes that answer itself, then closes. Pure: bytes in, bytes out.
enum UnknownMethodExchange {
    /// The request the raw bytes start with: the method and the path (percent-decoded) of its request line, no
    /// headers or body; nil when the bytes hold no request line ending in CRLF or LF.
    static func request(from bytes: some Collection<UInt8>, remoteAddress: String) -> HTTPRequest? {
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var line = Array(bytes[..<end])
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/".utf8)) else { return nil }
        let method = String(decoding: parts[0], as: UTF8.self).uppercased()
        let target = String(decoding: parts[1], as: UTF8.self)
        let rawPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard method.utf8.allSatisfy(isTokenCharacter), rawPath.hasPrefix("/") else { return nil }
        return HTTPRequest(
            method: method, path: String(rawPath).removingPercentEncoding ?? String(rawPath),
            remoteAddress: remoteAddress, requestID: SecureRandom.hex(byteCount: 8))
    }

    /// The whole answer on the wire: status line, the response's headers, its length, `Connection: close`, body.
    static func bytes(of response: HTTPResponse) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for field in response.headers {
            let name = field.name.lowercased()
            if name == "content-length" || name == "connection" { continue }
            head += "\(name): \(field.value)\r\n"
        }
        head += "content-length: \(response.body.count)\r\nconnection: close\r\n\r\n"
        return Array(head.utf8) + response.body
    }

    /// RFC 9110's token characters, the only ones a method may have.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// The reason phrase for the statuses an answer here can have.
    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 429: "Too Many Requests"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
