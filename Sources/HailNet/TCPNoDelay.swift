#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nagle's algorithm on a socket: off on every connection HailNet accepts.
///
/// With Nagle on, a write waits while earlier bytes of the connection are unacknowledged, and a client's delayed
/// ACK holds those for 40 ms: a kept-alive client paid that on every request whose answer left in two writes.
/// lws turns Nagle off on the sockets its own listener accepts and on its client connections, but HailNet accepts
/// on a listener of its own, places the connection on a loop and adopts the socket there, which skips lws's socket options.
enum TCPNoDelay {
    /// Turns Nagle off on `descriptor`; false when the socket refused (not TCP, or closed).
    @discardableResult
    static func enable(on descriptor: Int32) -> Bool {
        var on: Int32 = 1
        return setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    /// Whether Nagle is off on `descriptor` (nil when the option cannot be read).
    static func isEnabled(on descriptor: Int32) -> Bool? {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &size) == 0 else { return nil }
        return value != 0
    }
}
