import Foundation
import HailTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP load balancer in front of the scaled crash loop's nodes, doing what docs/DEPLOY.md's nginx does for
/// a real deployment: each new connection goes to the next node in turn, skipping one that refuses (nginx's
/// `proxy_next_upstream error`), and a connection whose node dies is closed on the client's side too, so
/// the apps see the drop and reconnect, landing on a live node. It reads nothing it forwards: HTTP and
/// WebSocket bytes pass as they are, one thread per direction per connection.
final class CrashLoopBalancer: Sendable {
    /// The port the clients connect to.
    let port: Int
    private let backends: [Int]
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var next = 0
        var stopped = false
        /// Every forwarded socket still open, so `stop()` can end them.
        var open: Set<Int32> = []
        /// Connections forwarded, by backend port.
        var forwarded: [Int: Int] = [:]
        /// Connections refused because no node answered.
        var refused = 0
    }

    /// Listens on a free loopback port and forwards to the nodes on `backends` (loopback ports).
    init(backends: [Int]) throws {
        self.backends = backends
        let descriptor = socket(AF_INET, Self.stream, 0)
        guard descriptor >= 0 else { throw HarnessError(description: "balancer: socket() failed: \(errno)") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 128) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard listening else {
            close(descriptor)
            throw HarnessError(description: "balancer: cannot listen on loopback: \(errno)")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How many connections went to each node, and how many found no live node.
    var counts: (forwarded: [Int: Int], refused: Int) { state.withLock { ($0.forwarded, $0.refused) } }

    /// Stops accepting and closes every forwarded connection.
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            // shutdown() wakes the threads blocked in accept() and read(); each closes its own sockets.
            shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in state.open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            if state.withLock({ $0.stopped }) {
                close(client)
                break
            }
            forward(client)
        }
        close(listener)
    }

    /// Connects `client` to the next node that accepts, and pumps both ways until either side ends.
    private func forward(_ client: Int32) {
        Self.noSignalOnWrite(client)
        let start = state.withLock { state -> Int in
            defer { state.next += 1 }
            return state.next
        }
        var chosen: (descriptor: Int32, port: Int)?
        for attempt in 0..<backends.count {
            let port = backends[(start + attempt) % backends.count]
            if let descriptor = Self.connect(port: port) {
                chosen = (descriptor, port)
                break
            }
        }
        guard let (backend, port) = chosen else {
            state.withLock { $0.refused += 1 }
            close(client)
            return
        }
        let registered = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.open.formUnion([client, backend])
            state.forwarded[port, default: 0] += 1
            return true
        }
        guard registered else {
            close(client)
            close(backend)
            return
        }
        let pair = PumpPair()
        Thread.detachNewThread { [self] in pump(from: client, to: backend, pair: pair) }
        Thread.detachNewThread { [self] in pump(from: backend, to: client, pair: pair) }
    }

    private func pump(from source: Int32, to sink: Int32, pair: PumpPair) {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        copying: while true {
            let count = read(source, buffer, size)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = Self.send(sink, buffer + sent, count - sent)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break copying }
                sent += written
            }
        }
        // Either side ending ends the connection: a killed node's clients see their socket drop, as behind
        // nginx. The first pump to finish wakes the other; the second closes both under the lock, so
        // `stop()` never shuts down a descriptor number already reused.
        state.withLock { state in
            if pair.finishOne() {
                state.open.subtract([source, sink])
                close(source)
                close(sink)
            } else {
                shutdown(source, Int32(SHUT_RDWR))
                shutdown(sink, Int32(SHUT_RDWR))
            }
        }
    }

    private static var stream: Int32 {
        #if canImport(Glibc)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A connected socket to the loopback `port`, or nil when nothing listens there (a killed node).
    private static func connect(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { return nil }
        noSignalOnWrite(descriptor)
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                #if canImport(Glibc)
                    Glibc.connect(descriptor, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #else
                    Darwin.connect(descriptor, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #endif
            }
        }
        guard connected else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Darwin has no MSG_NOSIGNAL: a write to a vanished peer must not raise SIGPIPE there either.
    private static func noSignalOnWrite(_ descriptor: Int32) {
        #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// `send` that never raises SIGPIPE on a peer that is gone: the test process must not die with a node.
    private static func send(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
        #else
            Darwin.send(descriptor, bytes, count, 0)
        #endif
    }
}

/// The two directions of one forwarded connection: which of them finished last.
private final class PumpPair: Sendable {
    private let finished = Atomic<Int>(0)

    /// True for the second direction to finish.
    func finishOne() -> Bool { finished.add(1, ordering: .sequentiallyConsistent).newValue == 2 }
}
