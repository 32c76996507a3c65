import Foundation

/// One blocking keep-alive HTTP/1.1 connection over a POSIX socket, owned by the one thread that made it.
///
/// URLSession costs more per request than the server does, so it would measure itself; this client
/// writes prebuilt request bytes and parses only the status line, the framing headers and the body.
final class HTTPConnection {
    /// The connected socket, closed in deinit.
    private let descriptor: Int32
    /// Bytes received and not yet consumed by a response.
    private var pending: [UInt8] = []
    /// Reused read buffer.
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    /// Connects to `endpoint`; reads and writes give up after `timeoutSeconds` so a stuck server
    /// cannot hang the benchmark.
    init(to endpoint: HTTPEndpoint, timeoutSeconds: Int = 5) throws(HTTPExchangeError) {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .socket(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(endpoint.port).bigEndian)
        guard inet_pton(AF_INET, endpoint.address, &address.sin_addr) == 1 else {
            close(fd)
            throw .malformed
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw .socket(code)
        }
        // Requests are small and latency is what is measured: do not wait to coalesce writes.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Writes `request` and reads its response.
    func exchange(_ request: [UInt8]) throws(HTTPExchangeError) -> HTTPReply {
        try write(request)
        return try readReply()
    }

    /// Writes all of `bytes`, retrying short writes.
    private func write(_ bytes: [UInt8]) throws(HTTPExchangeError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                throw written == 0 ? .closed : Self.failure(errno)
            }
        }
    }

    /// Appends whatever the socket has to `pending`, blocking until at least one byte or the timeout.
    private func fill() throws(HTTPExchangeError) {
        while true {
            let count = scratch.withUnsafeMutableBytes { raw in read(descriptor, raw.baseAddress!, raw.count) }
            if count > 0 {
                pending.append(contentsOf: scratch[0..<count])
                return
            }
            if count == 0 { throw .closed }
            if errno == EINTR { continue }
            throw Self.failure(errno)
        }
    }

    /// The error for a failed read or write: a socket timeout shows as EAGAIN.
    private static func failure(_ code: Int32) -> HTTPExchangeError {
        code == EAGAIN || code == EWOULDBLOCK ? .timeout : .socket(code)
    }

    /// Reads one response: status line, framing headers, then the body by length or chunks.
    private func readReply() throws(HTTPExchangeError) -> HTTPReply {
        var searchFrom = 0
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = Self.find([13, 10, 13, 10], in: pending, from: searchFrom)
            if headerEnd == nil {
                searchFrom = max(0, pending.count - 3)
                try fill()
            }
        }
        let head = String(decoding: pending[0..<headerEnd!], as: UTF8.self)
        pending.removeFirst(headerEnd! + 4)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw .malformed
        }
        var length: Int?
        var chunked = false
        var closes = statusParts[0] == "HTTP/1.0"
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "content-length": length = Int(value)
            case "transfer-encoding": chunked = value.contains("chunked")
            case "connection": closes = value.contains("close")
            default: break
            }
        }
        let body: [UInt8]
        if chunked {
            body = try readChunkedBody()
        } else if let length {
            body = try take(length)
        } else if status == 204 || status == 304 || (100..<200).contains(status) {
            body = []
        } else {
            // No framing: the body runs to the end of the connection.
            while true {
                do { try fill() } catch .closed { break }
            }
            body = pending
            pending = []
            closes = true
        }
        return HTTPReply(status: status, body: body, closes: closes)
    }

    /// Removes and returns the next `count` bytes, reading until they are there.
    private func take(_ count: Int) throws(HTTPExchangeError) -> [UInt8] {
        while pending.count < count { try fill() }
        let bytes = Array(pending[0..<count])
        pending.removeFirst(count)
        return bytes
    }

    /// Removes and returns the next CRLF-terminated line, without the CRLF.
    private func readLine() throws(HTTPExchangeError) -> String {
        var end = Self.find([13, 10], in: pending, from: 0)
        while end == nil {
            try fill()
            end = Self.find([13, 10], in: pending, from: 0)
        }
        let line = String(decoding: pending[0..<end!], as: UTF8.self)
        pending.removeFirst(end! + 2)
        return line
    }

    /// Reads a chunked body to its last chunk and trailers.
    private func readChunkedBody() throws(HTTPExchangeError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeText = try readLine().prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw .malformed }
            if size == 0 {
                // Trailers end with an empty line.
                while try !readLine().isEmpty {}
                return body
            }
            body += try take(size)
            guard try readLine().isEmpty else { throw .malformed }
        }
    }

    /// The index of `needle` in `haystack` at or after `start`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
