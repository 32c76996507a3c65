#if canImport(Glibc)
    import Foundation
    import Glibc

    /// A blocking TCP client with byte-exact control, for clients that misbehave on purpose: dribbling,
    /// never reading, hand-made WebSocket frames, keep-alive and slow readers. Every call blocks: make them through
    /// `onItsOwnThread`, so the cooperative pool stays free for the server under test.
    public final class RawSocket: @unchecked Sendable {
        // @unchecked: each test drives one socket from one task at a time (the dribble timer only sends, on
        // its own serial queue, while the test only reads); `fd` never changes.
        /// The connected socket.
        public let fd: Int32
        private var pending: [UInt8] = []

        /// What went wrong on the socket.
        public struct Failure: Error, CustomStringConvertible {
            /// The call and its errno or what was read so far.
            public let description: String

            /// A failure saying `description`.
            public init(description: String) { self.description = description }
        }

        /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks SO_RCVBUF before connecting.
        public init(port: Int, receiveBuffer: Int? = nil) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket() failed") }
            // A failure deadline only: a read that hangs ends the test instead of blocking it forever.
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
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

        /// Sends all of `bytes`.
        public func send(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
                offset += n
            }
        }

        /// Sends `text` as UTF-8.
        public func send(_ text: String) throws { try send(Array(text.utf8)) }

        /// Reads exactly `count` bytes.
        public func read(count: Int) throws -> [UInt8] {
            while pending.count < count { try fill() }
            let out = Array(pending[0..<count])
            pending.removeFirst(count)
            return out
        }

        /// Reads up to and including `delimiter`.
        public func read(until delimiter: [UInt8]) throws -> [UInt8] {
            while true {
                if let end = find(delimiter) {
                    let out = Array(pending[0..<end])
                    pending.removeFirst(end)
                    return out
                }
                try fill()
            }
        }

        private func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                throw Failure(description: "connection ended or timed out after \(pending.count) bytes")
            }
            pending.append(contentsOf: chunk[0..<n])
        }

        /// True once the peer has closed the connection (reads until EOF or reset, discarding data); false when
        /// the 20 s failure deadline passed with the connection still open.
        public func readUntilClosed() -> Bool {
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
        public struct Response: Sendable {
            /// The status code.
            public var status: Int
            /// Header fields, names lower-cased.
            public var headers: [String: String]
            /// The body, `Content-Length` bytes.
            public var body: [UInt8]
            /// The body as UTF-8 text.
            public var text: String { String(decoding: body, as: UTF8.self) }
        }

        /// Reads one HTTP/1.1 response with a Content-Length body.
        public func readResponse() throws -> Response {
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

        // MARK: WebSocket by hand

        /// Completes a WebSocket handshake on `path` (token in the query); throws unless the answer is 101.
        public func upgrade(path: String, port: Int) throws {
            try send(
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let head = String(decoding: try read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else { throw Failure(description: "no upgrade: \(head)") }
        }

        /// Sends one client frame (masked, as RFC 6455 requires of clients). Opcodes: 0 continuation, 1 text,
        /// 2 binary, 8 close.
        public func sendFrame(opcode: UInt8, payload: [UInt8], final: Bool = true) throws {
            var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
            if payload.count < 126 {
                frame.append(0x80 | UInt8(payload.count))
            } else if payload.count <= 0xFFFF {
                frame.append(0x80 | 126)
                frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
            } else {
                frame.append(0x80 | 127)
                frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
            }
            let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
            frame += mask
            frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
            try send(frame)
        }

        /// One server frame: its opcode and payload (servers do not mask).
        public func readFrame() throws -> (opcode: UInt8, payload: [UInt8]) {
            let head = try read(count: 2)
            var length = Int(head[1] & 0x7F)
            if length == 126 {
                let bytes = try read(count: 2)
                length = Int(bytes[0]) << 8 | Int(bytes[1])
            } else if length == 127 {
                length = try read(count: 8).reduce(0) { $0 << 8 | Int($1) }
            }
            return (head[0] & 0x0F, try read(count: length))
        }

        /// Reads frames until the server's close frame and returns its code and reason.
        public func readClose() throws -> (code: UInt16, reason: String) {
            while true {
                let frame = try readFrame()
                guard frame.opcode == 8 else { continue }
                guard frame.payload.count >= 2 else { return (1005, "") }
                let code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                return (code, String(decoding: frame.payload[2...], as: UTF8.self))
            }
        }

        /// Reads frames until a text frame containing `needle`, returning it.
        public func readText(containing needle: String) throws -> String {
            while true {
                let frame = try readFrame()
                if frame.opcode == 8 {
                    throw Failure(description: "closed while waiting for \(needle): \(frame.payload)")
                }
                let text = String(decoding: frame.payload, as: UTF8.self)
                if frame.opcode == 1, text.contains(needle) { return text }
            }
        }
    }
#endif
