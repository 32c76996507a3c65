import Foundation
import Glibc

/// A blocking TCP client for tests that need byte-exact control (keep-alive, slow readers).
/// Every blocking call runs on its own thread so the cooperative pool stays free for the server.
final class RawSocket: @unchecked Sendable {
    // @unchecked: each test uses one RawSocket from one task at a time; `fd` never changes.
    let fd: Int32
    private var pending: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks SO_RCVBUF before connecting.
    init(port: Int, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)  // failure path only: a hung test ends
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: `fd` is set, so a throw runs deinit, which closes it; closing twice could close a
        // descriptor another thread has just been given.
        guard result == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads exactly `count` bytes.
    func read(count: Int) throws -> [UInt8] {
        while pending.count < count {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                throw Failure(description: "connection ended or timed out after \(pending.count) bytes")
            }
            pending.append(contentsOf: chunk[0..<n])
        }
        let out = Array(pending[0..<count])
        pending.removeFirst(count)
        return out
    }

    /// Reads up to and including `delimiter`.
    func read(until delimiter: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = find(delimiter) {
                let out = Array(pending[0..<range])
                pending.removeFirst(range)
                return out
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "connection ended or timed out") }
            pending.append(contentsOf: chunk[0..<n])
        }
    }

    /// True when the peer has closed (reads until EOF, discarding data).
    func readUntilClosed() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    private func find(_ delimiter: [UInt8]) -> Int? {
        guard pending.count >= delimiter.count else { return nil }
        for start in 0...(pending.count - delimiter.count)
        where pending[start..<(start + delimiter.count)].elementsEqual(delimiter) {
            return start + delimiter.count
        }
        return nil
    }

    /// One parsed HTTP response.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Reads one HTTP/1.1 response with a Content-Length body.
    func readResponse() throws -> Response {
        let head = String(decoding: try read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        return Response(status: status, headers: headers, body: try read(count: length))
    }
}

/// Runs blocking work on a fresh thread and awaits its result.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.start()
    }
}
