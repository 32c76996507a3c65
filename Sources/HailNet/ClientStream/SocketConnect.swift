import HailThreads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The TCP half of `ClientStream.connect`: every address of the host tried in turn before one deadline, then the
/// socket options that bound each later wait.
enum SocketConnect {
    /// A connected non-blocking socket to `host`:`port`, or why none could be had by `deadline`.
    static func open(
        host: String, port: Int, peer: String, timeout: Duration, until deadline: ContinuousClock.Instant
    ) throws(ClientStreamError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw ClientStreamError(.unreachable, "\(peer): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var timedOut = false
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let address = next {
            next = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, 0)
            guard descriptor >= 0 else {
                reason = String(cString: strerror(errno))
                continue
            }
            // Non-blocking for the connect's deadline; not inherited by a child process.
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            switch attempt(descriptor, address.pointee, until: deadline) {
            case .connected:
                return descriptor
            case .failed(let text):
                reason = text
            case .timedOut:
                timedOut = true
            }
            _ = close(descriptor)
            if timedOut { break }
        }
        if timedOut { throw ClientStreamError(.timedOut, "\(peer): no connection within \(timeout.secondsText) s") }
        throw ClientStreamError(.unreachable, "\(peer): \(reason)")
    }

    private enum Attempt {
        case connected
        case failed(String)
        case timedOut
    }

    private static func attempt(_ descriptor: Int32, _ address: addrinfo, until deadline: ContinuousClock.Instant)
        -> Attempt
    {
        if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return .connected }
        guard errno == EINPROGRESS else { return .failed(String(cString: strerror(errno))) }
        switch wait(descriptor, events: Int16(POLLOUT), until: deadline) {
        case .some(true):
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else {
                return .failed(String(cString: strerror(errno)))
            }
            return error == 0 ? .connected : .failed(String(cString: strerror(error)))
        case .some(false):
            return .timedOut
        case nil:
            return .failed(String(cString: strerror(errno)))
        }
    }

    /// Waits until `descriptor` is ready for `events`: true when it is, false at `deadline`, nil on a poll error.
    static func wait(_ descriptor: Int32, events: Int16, until deadline: ContinuousClock.Instant) -> Bool? {
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: milliseconds + 1))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return nil }
        }
    }

    /// Makes the connected socket blocking with `timeout` on each send and receive, Nagle off (a command is one
    /// write that waits for its answer), keepalive probes after 15 s idle every 5 s, and `TCP_USER_TIMEOUT` three
    /// timeouts: a send's own timeout reports first, and this ends a connection whose peer stopped acknowledging
    /// (a partition) even when nothing reads it.
    static func configure(_ descriptor: Int32, timeout: Duration, peer: String) throws(ClientStreamError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            throw ClientStreamError(.io, "\(peer): \(String(cString: strerror(errno)))")
        }
        let (seconds, attoseconds) = timeout.components
        var time = timeval(tv_sec: Int(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
        let timeSize = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, timeSize)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, timeSize)
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        var options: [(Int32, Int32, Int32)] = [(Int32(IPPROTO_TCP), TCP_NODELAY, 1), (SOL_SOCKET, SO_KEEPALIVE, 1)]
        #if os(Linux)
            options += [
                (Int32(IPPROTO_TCP), TCP_KEEPIDLE, 15), (Int32(IPPROTO_TCP), TCP_KEEPINTVL, 5),
                (Int32(IPPROTO_TCP), TCP_KEEPCNT, 3),
                (Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(clamping: milliseconds * 3 + 1)),
            ]
        #else
            _ = milliseconds
            options.append((SOL_SOCKET, SO_NOSIGPIPE, 1))
        #endif
        for (level, name, value) in options {
            var value = value
            _ = setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }
}
