import Foundation
import HailAppSeams
import HailClient

/// An `HTTPCall` made ready for the wire: where it goes, its bytes, and what the client may do with it.
struct HTTPRequestPlan: Sendable {
    /// The server connected to.
    let origin: HTTPOrigin
    /// The request line, the header block and the body.
    let bytes: [UInt8]
    /// False for `HEAD`, whose answer has no body whatever its fields say.
    let expectsBody: Bool
    /// True when sending it twice does no harm (RFC 9110's idempotent methods, or a request with an
    /// `Idempotency-Key`): such a request lost on a kept-alive connection the server had just closed is sent
    /// again on a new one.
    let replayable: Bool

    /// Plans `call`, or says why it cannot be sent.
    init(_ call: HTTPCall) throws(CallError) {
        guard let origin = HTTPOrigin(call.url) else {
            throw .noAnswer("\(call.label): only http:// and https:// URLs with a host can be sent")
        }
        let url = call.url.absoluteURL
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .noAnswer("\(call.label): not a URL")
        }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?\(query)" }
        let method = call.method.uppercased()
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(origin.hostField)\r\n"
        for field in call.headers {
            let name = field.name.lowercased()
            guard name != "host", name != "content-length", name != "connection", name != "transfer-encoding" else {
                continue
            }
            guard Self.isToken(field.name), !field.value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw .unreadable("\(call.label): the header field \(field.name) cannot be written")
            }
            head += "\(field.name): \(field.value)\r\n"
        }
        if let body = call.body {
            head += "Content-Length: \(body.count)\r\n"
        } else if ["POST", "PUT", "PATCH"].contains(method) {
            head += "Content-Length: 0\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if let body = call.body { bytes.append(contentsOf: body) }
        self.origin = origin
        self.bytes = bytes
        expectsBody = method != "HEAD"
        replayable =
            ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
            || call.value(for: "Idempotency-Key") != nil
    }

    /// RFC 9110's token characters, the only ones a field name may hold.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
    }
}
