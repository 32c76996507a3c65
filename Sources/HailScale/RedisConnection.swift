import CRedis
import Foundation
import HailThreads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One hiredis connection: commands, pipelines, and the non-blocking pieces a subscriber's read loop needs.
///
/// Every wait is bounded by the endpoint's `timeout`: the connect, and each send and receive (the socket's
/// `SO_SNDTIMEO`/`SO_RCVTIMEO`, set once per connection, so a command costs no extra system call). A command
/// that meets the timeout fails, and the connection is dropped (hiredis leaves a context unusable after an I/O
/// error) and opened afresh by the next command. TCP keepalive finds a peer that vanished while the connection
/// sat idle, and `TCP_USER_TIMEOUT` one that stops acknowledging what was sent.
///
/// `@unchecked Sendable` only because it wraps a `redisContext`, which hiredis does not allow two threads to
/// use at once: what protects it is ownership, each connection being used only by the one thread it was
/// given to (a `ThreadPool` thread, or a bus's subscriber thread).
final class RedisConnection: @unchecked Sendable {
    private let endpoint: RedisEndpoint
    private var context: UnsafeMutablePointer<redisContext>?

    /// Creates a connection that connects on first use, on its owning thread (connecting blocks).
    init(endpoint: RedisEndpoint) { self.endpoint = endpoint }

    /// Sends one command and waits for its reply.
    func command(_ arguments: [String]) throws -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends several commands in one write and reads their replies in order.
    func pipeline(_ commands: [[String]]) throws -> [RedisReply] {
        var encoder = RedisCommandEncoder()
        for command in commands { encoder.append(command) }
        return try pipeline(encoder)
    }

    /// Sends the encoded commands in one write and reads their replies in order.
    func pipeline(_ commands: RedisCommandEncoder) throws -> [RedisReply] {
        guard commands.count > 0 else { return [] }
        let context = try open()
        try append(commands, to: context)
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in 0..<commands.count {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw failure(context) }
            replies.append(Self.convert(raw))
        }
        return replies
    }

    /// Connects if needed; the subscriber loop calls it before polling the socket.
    func connect() throws { _ = try open() }

    /// The socket, for `poll`.
    var fileDescriptor: Int32 { context?.pointee.fd ?? -1 }

    /// Queues a command in the output buffer without sending it.
    func enqueue(_ arguments: [String]) throws {
        var encoder = RedisCommandEncoder()
        encoder.append(arguments)
        try append(encoder, to: try open())
    }

    /// Writes the whole output buffer.
    func flush() throws {
        let context = try open()
        var done: Int32 = 0
        while done == 0 {
            guard redisBufferWrite(context, &done) == REDIS_OK else { throw failure(context) }
        }
    }

    /// Reads what the socket has (call only when `poll` says it is readable, or it blocks).
    func readAvailable() throws {
        let context = try open()
        guard redisBufferRead(context) == REDIS_OK else { throw failure(context) }
    }

    /// The next complete reply already read, if any.
    func bufferedReply() throws -> RedisReply? {
        let context = try open()
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &raw) == REDIS_OK else { throw failure(context) }
        return raw.map(Self.convert)
    }

    /// Closes the connection; the next command reconnects.
    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    private func open() throws -> UnsafeMutablePointer<redisContext> {
        if let context { return context }
        let timeout = Self.socketTime(endpoint.timeout)
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), timeout)
        else { throw RedisError.connection("out of memory") }
        guard context.pointee.err == 0 else {
            let message = Self.message(context)
            redisFree(context)
            throw RedisError.connection("\(endpoint.host):\(endpoint.port): \(message)")
        }
        // The connect timeout stays the send and receive timeout (hiredis sets it on the socket); a subscriber
        // waits on poll with a deadline of its own, and reads only what poll says has arrived.
        redisSetTimeout(context, timeout)
        redisEnableKeepAlive(context)
        // Three timeouts: a send's own timeout reports first; this ends a connection whose peer stopped
        // acknowledging (a partition) even when nothing reads it.
        var userTimeout = UInt32(clamping: endpoint.timeout.components.seconds * 3000 + 1)
        _ = setsockopt(
            context.pointee.fd, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &userTimeout, socklen_t(MemoryLayout<UInt32>.size)
        )
        self.context = context
        if endpoint.database != 0 { _ = try command(["SELECT", String(endpoint.database)]).checked() }
        return context
    }

    private func append(_ commands: RedisCommandEncoder, to context: UnsafeMutablePointer<redisContext>) throws {
        // hiredis copies the bytes into its output buffer before returning.
        let status = commands.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { redisAppendFormattedCommand(context, $0.baseAddress, $0.count) }
        }
        guard status == REDIS_OK else { throw failure(context) }
    }

    /// The context's error; the connection is unusable after one, so it is dropped for a reconnect.
    private func failure(_ context: UnsafeMutablePointer<redisContext>) -> RedisError {
        var message = Self.message(context)
        // A socket timeout reaches hiredis as EAGAIN on a blocking socket.
        if context.pointee.err == REDIS_ERR_IO, errno == EAGAIN || errno == EWOULDBLOCK {
            message = "\(endpoint.host):\(endpoint.port) did not answer within \(endpoint.timeout.secondsText) s"
        }
        let error = RedisError.connection(message)
        close()
        return error
    }

    private static func socketTime(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return timeval(tv_sec: Int(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
    }

    private static func message(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func convert(_ raw: UnsafeMutableRawPointer) -> RedisReply {
        defer { freeReplyObject(raw) }
        return copy(raw.assumingMemoryBound(to: redisReply.self))
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        func text() -> String {
            guard let str = value.str else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: str, count: Int(value.len)), as: UTF8.self)
        }
        switch value.type {
        case REDIS_REPLY_STRING: return .string(text())
        case REDIS_REPLY_STATUS: return .status(text())
        case REDIS_REPLY_ERROR: return .error(text())
        case REDIS_REPLY_INTEGER: return .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            return .array((0..<Int(value.elements)).compactMap { value.element[$0].map(copy) })
        default: return .null
        }
    }
}
