import Foundation
import HailServer

/// A FuzzServer input: HTTP requests and WebSocket sessions in order, written like HTTP/1.1 messages.
///
/// Steps are separated by a line `===`. A step is a request line `METHOD TARGET`, header lines
/// `Name: value`, an empty line and the body. A step with `Upgrade: websocket` is a WebSocket session
/// whose body is the frames the client sends, separated by a line `---`; a frame starting with `B` is
/// binary (the rest of it), one starting with `T` is text (the rest), anything else is text as a whole.
/// A step `ADVANCE <seconds>` moves the server's clock. `$rider`, `$driver`, `$share`, `$trip1`, ... in the
/// target, header values and body stand for tokens and trip ids (`InProcessServer.placeholders(forInput:)`).
public enum ServerScript {
    /// One thing the client does.
    public enum Step: Sendable {
        /// An HTTP request.
        case request(APIRequest)
        /// A WebSocket upgrade request and the frames sent once it is accepted.
        case session(APIRequest, frames: [LiveInbound])
        /// Moves the clock forward by this many seconds.
        case advance(seconds: Double)
    }

    /// Steps past this many are ignored, to keep one input fast.
    public static let maximumSteps = 16

    /// The steps of `bytes`; never fails, whatever the bytes are.
    public static func parse(_ bytes: [UInt8], placeholders: [(name: String, value: String)] = []) -> [Step] {
        let chunks = FuzzInput.split(bytes[...], separator: Array("\n===\n".utf8))
        return chunks.prefix(maximumSteps).compactMap { step($0, placeholders) }
    }

    /// `text` with every placeholder replaced by its value.
    public static func substitute(_ text: String, _ placeholders: [(name: String, value: String)]) -> String {
        guard text.contains("$") else { return text }
        var result = text
        for placeholder in placeholders {
            result = result.replacingOccurrences(of: placeholder.name, with: placeholder.value)
        }
        return result
    }

    private static func step(_ chunk: ArraySlice<UInt8>, _ placeholders: [(name: String, value: String)]) -> Step? {
        let parts = FuzzInput.split(chunk, separator: Array("\n\n".utf8))
        let head = String(decoding: parts[0], as: UTF8.self)
        let body = parts.count > 1 ? chunk[parts[1].startIndex...] : []
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 1).map(String.init)
        guard let method = requestLine.first else { return nil }
        let target = requestLine.count > 1 ? substitute(requestLine[1], placeholders) : ""
        if method == "ADVANCE" {
            guard let seconds = Double(target), seconds.isFinite, seconds >= 0, seconds < 1e7 else { return nil }
            return .advance(seconds: seconds)
        }
        var headers = [String: String]()
        for line in lines {
            let field = line.split(separator: ":", maxSplits: 1).map(String.init)
            guard field.count == 2 else { continue }
            let value = field[1].drop { $0 == " " }
            headers[field[0]] = substitute(String(value), placeholders)
        }
        // Only bodies that mention a placeholder are rewritten, so other bytes reach the server untouched.
        let bodyBytes =
            body.contains(UInt8(ascii: "$"))
            ? Array(substitute(String(decoding: body, as: UTF8.self), placeholders).utf8)[...] : body
        let request = APIRequest(method: method, target: target, headers: headers, body: Data(bodyBytes))
        guard request.header("upgrade")?.lowercased() == "websocket" else { return .request(request) }
        let frames = FuzzInput.split(bodyBytes, separator: Array("\n---\n".utf8)).map(frame)
        return .session(request, frames: frames)
    }

    private static func frame(_ bytes: ArraySlice<UInt8>) -> LiveInbound {
        switch bytes.first {
        case UInt8(ascii: "B"): return .binary(Data(bytes.dropFirst()))
        case UInt8(ascii: "T"): return .text(String(decoding: bytes.dropFirst(), as: UTF8.self))
        default: return .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
