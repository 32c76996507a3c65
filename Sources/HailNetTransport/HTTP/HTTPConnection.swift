import HailNet

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One kept-alive connection to an origin, and the blocking exchange of one request on it.
///
/// `@unchecked Sendable` around `ClientStream` (a socket and an OpenSSL session): one thread uses a connection at
/// a time, and it passes between threads only through `HTTPConnectionPool`'s lock, checked in idle and out again.
final class HTTPConnection: @unchecked Sendable {
    let origin: HTTPOrigin
    /// When it last finished an exchange, for the pool's idle limit.
    var idleSince = ContinuousClock.now
    /// True once it has carried an exchange: a failure on it may be the server's idle close, not the request's.
    private(set) var reused = false
    private let stream: ClientStream

    private init(origin: HTTPOrigin, stream: ClientStream) {
        self.origin = origin
        self.stream = stream
    }

    /// Connects to `origin` by `deadline` (name resolution, TCP, and TLS for https), `timeout` bounding each later
    /// send and receive.
    static func open(
        _ origin: HTTPOrigin, tls: TLSClientSettings, timeout: Duration, until deadline: ContinuousClock.Instant
    ) throws(HTTPExchangeFailure) -> HTTPConnection {
        let left = deadline - .now
        guard left > .zero else { throw .timedOut }
        do {
            let stream = try ClientStream.connect(
                to: origin.host, port: origin.port, timeout: min(left, timeout), tls: origin.secure ? tls : nil)
            return HTTPConnection(origin: origin, stream: stream)
        } catch {
            if error.code == .timedOut { throw .timedOut }
            throw .connect(error.message)
        }
    }

    /// True when the server has sent nothing and closed nothing since the last answer, so a request may go: a
    /// readable idle connection is one the server closed (or wrote garbage to).
    var isQuiet: Bool {
        if stream.hasBufferedInput { return false }
        var entry = pollfd(fd: stream.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Sends `plan` and reads its whole answer by `deadline`, waiting on the socket with `poll` (a thread asleep
    /// in the kernel, no busy loop). After a failure the connection is unusable: the caller closes it.
    func exchange(_ plan: HTTPRequestPlan, until deadline: ContinuousClock.Instant) throws(HTTPExchangeFailure)
        -> HTTPResponseParts
    {
        defer { reused = true }
        var parser = HTTPResponseParser(expectsBody: plan.expectsBody)
        let sent = plan.bytes.withUnsafeBytes { bytes in
            Result { () throws(ClientStreamError) in try stream.write(bytes) }
        }
        if case .failure(let error) = sent {
            throw error.code == .timedOut ? .timedOut : .lost(error.message, answerStarted: false)
        }
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            guard waitForInput(until: deadline) else { throw .timedOut }
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(ClientStreamError) in try stream.read(into: buffer) }
            }
            switch read {
            case .success(let count):
                let progress: HTTPResponseParser.Progress
                do { progress = try parser.feed(chunk[0..<count]) } catch {
                    throw .malformed("\(origin.description): \(error.message)")
                }
                if case .complete(let parts) = progress { return parts }
            case .failure(let error) where error.code == .timedOut:
                throw .timedOut
            case .failure(let error) where error.code == .closed:
                do { return try parser.closed() } catch {
                    throw .lost("\(origin.description) \(error.message)", answerStarted: error.code != .closed)
                }
            case .failure(let error):
                throw .lost(error.message, answerStarted: parser.answerStarted)
            }
        }
    }

    /// Closes the socket.
    func close() { stream.close() }

    /// Sleeps in `poll` until bytes arrive (or the peer closes); false at `deadline`.
    private func waitForInput(until deadline: ContinuousClock.Instant) -> Bool {
        if stream.hasBufferedInput { return true }
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            var entry = pollfd(fd: stream.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: milliseconds + 1))
            if ready > 0 { return true }
            // A poll error is left to the read that follows, which names it.
            if ready < 0 && errno != EINTR { return true }
        }
    }
}
