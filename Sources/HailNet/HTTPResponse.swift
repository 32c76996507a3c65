/// An HTTP response of any size; HailNet writes it in chunks as the socket drains.
public struct HTTPResponse: Sendable {
    /// Status code, e.g. 200.
    public var status: Int
    /// Response headers; Content-Length is computed, Content-Type comes from here.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is UTF-8 JSON text already encoded by the caller.
    public static func json(status: Int = 200, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A plain-text response.
    public static func text(status: Int = 200, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The wire's error body `{"error":{"code":…,"message":…}}` with this status.
    public static func error(status: Int, code: String, message: String) -> HTTPResponse {
        let body = "{\"error\":{\"code\":\(jsonString(code)),\"message\":\(jsonString(message))}}"
        return json(status: status, Array(body.utf8))
    }

    /// Quotes and escapes `text` as a JSON string (HailNet does not depend on the JSON codec above it).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
