import Foundation
import HailThreads

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP server on 127.0.0.1 whose every answer a test writes by hand, byte for byte: chunks, a close
/// mid-body, no answer at all. Each connection runs `script` on a thread of its own.
final class ScriptedHTTPServer: Sendable {
    /// One accepted connection, as the script sees it.
    final class Connection: @unchecked Sendable {
        // @unchecked: a connection is used only by the one thread running its script; `fd` never changes.
        let fd: Int32
        private var pending: [UInt8] = []

        init(fd: Int32) { self.fd = fd }

        /// The next request's head and body as text, or nil when the client closed the connection first.
        func readRequest() -> String? {
            while true {
                if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                    let length =
                        head.split(separator: "\r\n")
                        .first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if pending.count >= end.upperBound + length {
                        let request = String(decoding: pending[..<(end.upperBound + length)], as: UTF8.self)
                        pending.removeFirst(end.upperBound + length)
                        return request
                    }
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return nil }
                pending.append(contentsOf: buffer[0..<count])
            }
        }

        /// Sends `text` as it is.
        func send(_ text: String) {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let state = Locked((requests: [String](), connections: 0, stopped: false))
    private let stop = DispatchSemaphore(value: 0)

    /// Listens on an ephemeral port; `script` answers each connection, which is closed when it returns.
    init(script: @escaping @Sendable (Connection, ScriptedHTTPServer) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, size) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, pointer, &size) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else {
                    // Only this thread closes the listener: closed elsewhere, its number could be another
                    // socket's by the time this thread first calls accept.
                    close(listener)
                    return
                }
                state.withLock { $0.connections += 1 }
                Thread.detachNewThread { [self] in
                    script(Connection(fd: fd), self)
                    close(fd)
                }
            }
        }
    }

    /// Records a request the script read, for the test to look at.
    func record(_ request: String) { state.withLock { $0.requests.append(request) } }

    /// The requests scripts recorded, in order.
    var requests: [String] { state.withLock { $0.requests } }

    /// How many connections were accepted.
    var connections: Int { state.withLock { $0.connections } }

    /// Blocks a script until `shutdown()`: a server that never answers.
    func waitForShutdown() { stop.wait() }

    /// Stops listening and releases every script waiting in `waitForShutdown()`.
    func shutdown() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        // Stops the listening (a connect is refused from now on) and wakes the accept thread, which closes it.
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for _ in 0..<16 { stop.signal() }
    }
}
