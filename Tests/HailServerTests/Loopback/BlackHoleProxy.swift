import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy of the test's own on a free loopback port in front of a backend, that can stop forwarding without
/// closing anything: a black hole, as a partition that drops packets looks to both ends (their kernels still
/// acknowledge what is sent, so no socket error ever reports it). It can also be armed to go black the moment a client
/// sends given bytes (`blackHole(whenClientSends:then:)`), holding that very message: a test places the stall at one
/// step of the node's work (after a commit, at its publish) without timing anything.
final class BlackHoleProxy: Sendable {
    private struct State {
        var blackHoled = false
        var stopped = false
        /// Bytes that black-hole the proxy when a client sends them, and who is told.
        var trigger: (marker: [UInt8], then: @Sendable () -> Void)?
    }

    /// Where clients connect.
    let port: Int
    private let targetPort: UInt16
    private let listener: Int32
    private let state = Mutex(State())

    /// A proxy to `127.0.0.1:targetPort`, forwarding from the start.
    init(targetPort: Int) throws {
        self.targetPort = UInt16(targetPort)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw LoopbackError(description: "the proxy could not listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in self.acceptLoop() }
        thread.start()
    }

    /// Stops forwarding (true) or forwards again, including what waited meanwhile (false).
    func blackHole(_ on: Bool) { state.withLock { $0.blackHoled = on } }

    /// Forwards until a client sends `marker` (within one read), then black-holes: that read is held, unforwarded, with
    /// everything else, until `blackHole(false)`; `then` runs once, on the proxy's thread, as it goes black.
    func blackHole(whenClientSends marker: String, then: @escaping @Sendable () -> Void) {
        state.withLock { $0.trigger = (Array(marker.utf8), then) }
    }

    /// Takes the trigger when `bytes` hold its marker, black-holing the proxy in the same step.
    private func trips(on bytes: ArraySlice<UInt8>) -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard let trigger = state.trigger, Self.contains(bytes, trigger.marker) else { return nil }
            state.trigger = nil
            state.blackHoled = true
            return trigger.then
        }
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ marker: [UInt8]) -> Bool {
        guard !marker.isEmpty, bytes.count >= marker.count else { return false }
        var start = bytes.startIndex
        while start + marker.count <= bytes.endIndex {
            if bytes[start..<start + marker.count].elementsEqual(marker) { return true }
            start += 1
        }
        return false
    }

    /// Closes the listener; each connection ends at its next turn.
    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let thread = Thread { [self] in self.pump(client, upstream) }
            thread.start()
        }
        close(listener)
    }

    /// Copies bytes both ways until either side closes, reading nothing while black-holed; a client's read that set
    /// the proxy off (`blackHole(whenClientSends:then:)`) waits, unforwarded, until it forwards again.
    private func pump(_ a: Int32, _ b: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var held: [UInt8] = []
        loop: while true {
            let (blackHoled, stopped) = state.withLock { ($0.blackHoled, $0.stopped) }
            if stopped { break }
            if !blackHoled, !held.isEmpty {
                guard Self.write(held[...], to: b) else { break loop }
                held = []
            }
            var descriptors = [
                pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
            ]
            // Black-holed, it watches nothing: what either side sends waits in the kernel, acknowledged.
            let ready = poll(&descriptors, blackHoled ? 0 : 2, 50)
            guard ready > 0 else { continue }
            for (from, to) in [(0, b), (1, a)] where descriptors[from].revents != 0 {
                let count = read(descriptors[from].fd, &buffer, buffer.count)
                if count <= 0 { break loop }
                if from == 0, let then = trips(on: buffer[0..<count]) {
                    held = Array(buffer[0..<count])
                    then()
                    continue loop
                }
                guard Self.write(buffer[0..<count], to: to) else { break loop }
            }
        }
        close(a)
        close(b)
    }

    /// Writes all of `bytes`; false when the socket failed.
    private static func write(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var written = bytes.startIndex
        while written < bytes.endIndex {
            let step = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if step <= 0 { return false }
            written += step
        }
        return true
    }
}
