import Foundation

/// A request whose method libwebsockets does not know (TRACE, or any other token): lws would answer it with an
/// HTML 403 of its own, so it hands the connection over as a raw socket instead, and HailNet reads the request line
/// here, lets the handler answer like any request (405 with `Allow` for a path that exists, 501 or 404 otherwise)
/// and writes that answer itself, then closes. Pure: bytes in, bytes out.
enum UnknownMethodExchange {
    /// Where one such connection is.
    enum Stage {
        /// Reading until the request line is whole (what has come so far).
        case reading([UInt8])
        /// The handler has the request.
        case answering
        /// The answer to write.
        case writing([UInt8])
        /// Written: close once lws has flushed it.
        case closing
    }

    /// What the bytes so far call for.
    enum Step: Equatable {
        /// No whole request line yet: read on (these are the bytes to keep).
        case readMore([UInt8])
        /// A request for the handler.
        case dispatch(method: String, path: String)
        /// An answer of HailNet's own (a line too long or malformed).
        case answer([UInt8])
    }

    /// The longest request line read; lws allows the same for a whole head (`max_http_header_data`).
    static let maximumLineBytes = 16_384

    /// Reads the request line from the bytes that have come so far: its method and path (percent-decoded);
    /// headers and body are never read.
    static func step(_ bytes: [UInt8]) -> Step {
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            if bytes.count > maximumLineBytes {
                return .answer(
                    self.bytes(
                        of: .error(
                            status: 414, code: "invalid_field",
                            message: "the request line is longer than \(maximumLineBytes) bytes")))
            }
            return .readMore(bytes)
        }
        var line = Array(bytes[..<end])
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        let malformed = Step.answer(
            self.bytes(of: .error(status: 400, code: "invalid_body", message: "not an HTTP/1.1 request line")))
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/".utf8)) else { return malformed }
        let method = String(decoding: parts[0], as: UTF8.self).uppercased()
        let target = String(decoding: parts[1], as: UTF8.self)
        let rawPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard parts[0].allSatisfy(isTokenCharacter), rawPath.hasPrefix("/") else { return malformed }
        return .dispatch(method: method, path: String(rawPath).removingPercentEncoding ?? String(rawPath))
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
        case 414: "URI Too Long"
        case 429: "Too Many Requests"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
