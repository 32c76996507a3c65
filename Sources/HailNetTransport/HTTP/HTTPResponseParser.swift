/// Reads one HTTP/1.1 response from the bytes a connection delivers, in whatever pieces they come: the status
/// line and header fields, then a body framed by `Content-Length`, by chunked transfer coding, or by the
/// connection's close. Pure: no socket, so each framing and each malformed answer is tested byte by byte.
struct HTTPResponseParser {
    /// What the bytes so far amount to.
    enum Progress: Equatable {
        /// The answer is not whole yet: read more.
        case needMore
        /// The answer is whole.
        case complete(HTTPResponseParts)
    }

    /// The largest status line and header block accepted.
    static let headLimit = 64 << 10
    /// The largest body accepted: Hail's answers are JSON of a few kilobytes.
    static let bodyLimit = 32 << 20

    private enum Stage: Equatable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case done
    }

    private let expectsBody: Bool
    private var stage = Stage.head
    private var buffer: [UInt8] = []
    private var position = 0
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    private var keepAlive = false
    private var body: [UInt8] = []

    /// A parser for the answer to a request whose method may carry a body back (false for `HEAD`).
    init(expectsBody: Bool = true) {
        self.expectsBody = expectsBody
    }

    /// Takes the next bytes read from the connection.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(HTTPResponseError) -> Progress {
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        }
        buffer.append(contentsOf: bytes)
        return try advance()
    }

    /// The peer closed the connection: the answer if that ends it (a body framed by the close), else why not.
    mutating func closed() throws(HTTPResponseError) -> HTTPResponseParts {
        switch stage {
        case .untilClose:
            stage = .done
            return parts(reusable: false)
        case .head:
            if buffer.isEmpty { throw HTTPResponseError(.closed, "closed the connection without an answer") }
            throw HTTPResponseError(.truncated, "closed the connection inside the answer's header")
        case .done:
            return parts(reusable: false)
        default:
            throw HTTPResponseError(.truncated, "closed the connection after \(body.count) bytes of the body")
        }
    }

    /// True once any byte of the answer has arrived: a request that failed before then was perhaps never read.
    var answerStarted: Bool { !buffer.isEmpty || status != 0 }

    private mutating func advance() throws(HTTPResponseError) -> Progress {
        while true {
            switch stage {
            case .head:
                guard try readHead() else { return .needMore }
            case .fixed(let remaining):
                let take = min(remaining, buffer.count - position)
                body.append(contentsOf: buffer[position..<position + take])
                position += take
                if take < remaining {
                    stage = .fixed(remaining: remaining - take)
                    return .needMore
                }
                stage = .done
            case .chunkSize:
                guard let line = try nextLine(limit: 1024, what: "chunk size") else { return .needMore }
                let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") }
                guard !digits.isEmpty, digits.count <= 8,
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else { throw HTTPResponseError(.malformed, "a chunk size that is not hexadecimal") }
                guard body.count + size <= Self.bodyLimit else { throw tooLarge() }
                stage = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - position)
                body.append(contentsOf: buffer[position..<position + take])
                position += take
                if take < remaining {
                    stage = .chunkData(remaining: remaining - take)
                    return .needMore
                }
                stage = .chunkEnd
            case .chunkEnd:
                guard let line = try nextLine(limit: 2, what: "chunk end") else { return .needMore }
                guard line.isEmpty else { throw HTTPResponseError(.malformed, "a chunk longer than its size") }
                stage = .chunkSize
            case .trailers:
                guard let line = try nextLine(limit: Self.headLimit, what: "trailer") else { return .needMore }
                if line.isEmpty { stage = .done }
            case .untilClose:
                body.append(contentsOf: buffer[position...])
                position = buffer.count
                guard body.count <= Self.bodyLimit else { throw tooLarge() }
                return .needMore
            case .done:
                // Bytes after the answer were never asked for: the connection is not reused.
                return .complete(parts(reusable: keepAlive && position == buffer.count))
            }
        }
    }

    /// Parses the status line and fields once the blank line that ends them is in; false while it is not.
    private mutating func readHead() throws(HTTPResponseError) -> Bool {
        guard let end = headEnd() else {
            if buffer.count - position > Self.headLimit {
                throw HTTPResponseError(.malformed, "a header over \(Self.headLimit) bytes")
            }
            return false
        }
        let lines = buffer[position..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { line in line.last == UInt8(ascii: "\r") ? line.dropLast() : line }
        position = end + 4
        guard let statusLine = lines.first else { throw HTTPResponseError(.malformed, "no status line") }
        let words = statusLine.split(separator: UInt8(ascii: " "), maxSplits: 2)
        guard words.count >= 2, words[0].starts(with: Array("HTTP/1.".utf8)), words[1].count == 3,
            let code = Int(String(decoding: words[1], as: UTF8.self)), (100...599).contains(code)
        else {
            throw HTTPResponseError(
                .malformed, "not an HTTP/1.x status line: \(String(decoding: statusLine.prefix(60), as: UTF8.self))")
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw HTTPResponseError(.malformed, "a header line without a name")
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
            fields.append((name, value))
        }
        // An interim answer (100 Continue, 103 Early Hints) precedes the real one.
        if (100..<200).contains(code) {
            guard code != 101 else { throw HTTPResponseError(.malformed, "an upgrade nobody asked for") }
            return true
        }
        status = code
        headers = fields
        let version11 = words[0] == Array("HTTP/1.1".utf8)[...]
        let connection = tokens("connection")
        keepAlive = version11 ? !connection.contains("close") : connection.contains("keep-alive")
        try chooseFraming()
        return true
    }

    private mutating func chooseFraming() throws(HTTPResponseError) {
        if !expectsBody || status == 204 || status == 304 {
            stage = .done
            return
        }
        let codings = tokens("transfer-encoding")
        if !codings.isEmpty {
            guard codings.last == "chunked" else {
                throw HTTPResponseError(
                    .malformed, "a transfer coding other than chunked: \(codings.joined(separator: ", "))")
            }
            stage = .chunkSize
            return
        }
        let lengths = Set(tokens("content-length"))
        if lengths.isEmpty {
            keepAlive = false
            stage = .untilClose
            return
        }
        guard lengths.count == 1, let text = lengths.first, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber),
            let length = Int(text)
        else { throw HTTPResponseError(.malformed, "a Content-Length that is not one number") }
        guard length <= Self.bodyLimit else { throw tooLarge() }
        stage = length == 0 ? .done : .fixed(remaining: length)
    }

    /// The comma-separated, lowercased values of every field named `name`.
    private func tokens(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name }
            .flatMap { $0.value.split(separator: ",") }
            .map { String($0).trimmingSpaces.lowercased() }
            .filter { !$0.isEmpty }
    }

    /// The index of the `\r\n\r\n` that ends the head, if it has arrived.
    private func headEnd() -> Int? {
        guard buffer.count - position >= 4 else { return nil }
        var index = position
        while index + 3 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The next CRLF-ended line without its CRLF, or nil until it has arrived.
    private mutating func nextLine(limit: Int, what: String) throws(HTTPResponseError) -> ArraySlice<UInt8>? {
        var index = position
        while index + 1 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 {
                let line = buffer[position..<index]
                position = index + 2
                return line
            }
            index += 1
        }
        if buffer.count - position > limit + 2 { throw HTTPResponseError(.malformed, "a \(what) line too long") }
        return nil
    }

    private func tooLarge() -> HTTPResponseError {
        HTTPResponseError(.malformed, "a body over \(Self.bodyLimit) bytes")
    }

    private func parts(reusable: Bool) -> HTTPResponseParts {
        HTTPResponseParts(status: status, headers: headers, body: body, reusable: reusable)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
