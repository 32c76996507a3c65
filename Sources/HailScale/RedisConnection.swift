import CRedis
import Foundation
import HailNet
import HailThreads

/// One Redis connection: commands, pipelines, and the non-blocking pieces a subscriber's read loop needs.
///
/// The bytes travel on HailNet's `ClientStream` (plain TCP, or TLS for `rediss://`, which hiredis 0.14 cannot
/// speak); hiredis only parses the replies (`redisReader`), and `RedisCommandEncoder` writes the commands. Every
/// wait is bounded by the endpoint's `timeout`: the connect (TLS handshake included), and each send and receive
/// (the socket's own timeouts, set once per connection, so a command costs no extra system call). A command that
/// meets the timeout fails, and the connection is dropped and opened afresh by the next command. TCP keepalive
/// finds a peer that vanished while the connection sat idle, and `TCP_USER_TIMEOUT` one that stops acknowledging
/// what was sent. Each connect authenticates first when the endpoint has credentials (`AUTH`), then selects the
/// database: a refused password is a `RedisError.Code.authentication`, whose message names the user, never the
/// password.
///
/// `@unchecked Sendable` only because it holds a `redisReader` and a stream, which allow no two threads at once:
/// what protects them is ownership, each connection being used only by the one thread it was given to (a
/// `ThreadPool` thread, or a bus's subscriber thread).
final class RedisConnection: @unchecked Sendable {
    private let endpoint: RedisEndpoint
    private var stream: ClientStream?
    private var reader: UnsafeMutablePointer<redisReader>?
    /// Commands queued by `enqueue` and not yet sent.
    private var output: [UInt8] = []
    private var input = [UInt8](repeating: 0, count: 16 * 1024)

    /// Creates a connection that connects on first use, on its owning thread (connecting blocks).
    init(endpoint: RedisEndpoint) { self.endpoint = endpoint }

    deinit { close() }

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
        let stream = try open()
        try send(commands.bytes, on: stream)
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in 0..<commands.count { replies.append(try nextReply(on: stream)) }
        return replies
    }

    /// Connects if needed; the subscriber loop calls it before polling the socket.
    func connect() throws { _ = try open() }

    /// The socket, for `poll`.
    var fileDescriptor: Int32 { stream?.fileDescriptor ?? -1 }

    /// Queues a command in the output buffer without sending it.
    func enqueue(_ arguments: [String]) throws {
        _ = try open()
        var encoder = RedisCommandEncoder()
        encoder.append(arguments)
        output.append(contentsOf: encoder.bytes)
    }

    /// Writes the whole output buffer.
    func flush() throws {
        let stream = try open()
        guard !output.isEmpty else { return }
        defer { output.removeAll(keepingCapacity: true) }
        try send(output, on: stream)
    }

    /// Reads what the socket has (call only when `poll` says it is readable, or it blocks up to the timeout),
    /// and whatever TLS had already decrypted behind it, which `poll` cannot see.
    func readAvailable() throws {
        let stream = try open()
        repeat { try readSome(from: stream) } while stream.hasBufferedInput
    }

    /// The next complete reply already read, if any.
    func bufferedReply() throws -> RedisReply? {
        guard let reader else { throw RedisError.closed }
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else {
            let message = Self.message(of: reader)
            close()
            throw RedisError.unexpected("\(endpoint.host):\(endpoint.port) sent what is not RESP: \(message)")
        }
        return raw.map(Self.convert)
    }

    /// Closes the connection; the next command reconnects.
    func close() {
        stream?.close()
        stream = nil
        if let reader { redisReaderFree(reader) }
        reader = nil
        output.removeAll()
    }

    private func open() throws -> ClientStream {
        if let stream { return stream }
        let stream: ClientStream
        do {
            stream = try ClientStream.connect(
                to: endpoint.host, port: endpoint.port, timeout: endpoint.timeout, tls: endpoint.tls)
        } catch {
            throw RedisError.connection(error.message)
        }
        guard let reader = redisReaderCreate() else {
            stream.close()
            throw RedisError.connection("out of memory")
        }
        self.stream = stream
        self.reader = reader
        var hello = RedisCommandEncoder()
        if let credentials = endpoint.credentials { hello.append(credentials.authCommand) }
        if endpoint.database != 0 { hello.append(["SELECT", String(endpoint.database)]) }
        guard hello.count > 0 else { return stream }
        // One round trip: a refused AUTH makes the SELECT after it fail too, and the AUTH's answer is read first.
        let replies = try pipeline(hello)
        if let credentials = endpoint.credentials, case .error(let message) = replies[0] {
            close()
            throw RedisError.authentication("\(endpoint.host):\(endpoint.port) refused \(credentials): \(message)")
        }
        do { _ = try replies.last!.checked() } catch {
            close()
            throw error
        }
        return stream
    }

    private func send(_ bytes: [UInt8], on stream: ClientStream) throws {
        do {
            try bytes.withUnsafeBytes { try stream.write($0) }
        } catch let error as ClientStreamError {
            close()
            throw RedisError.connection(error.message)
        }
    }

    private func nextReply(on stream: ClientStream) throws -> RedisReply {
        while true {
            if let reply = try bufferedReply() { return reply }
            try readSome(from: stream)
        }
    }

    /// One read from the stream into the reply parser; the connection is unusable after a failure, so it is
    /// dropped for a reconnect.
    private func readSome(from stream: ClientStream) throws {
        do {
            let count = try input.withUnsafeMutableBytes { try stream.read(into: $0) }
            let fed = input.withUnsafeBytes { bytes in
                redisReaderFeed(reader, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), count)
            }
            guard fed == REDIS_OK else { throw RedisError.connection("out of memory") }
        } catch let error as ClientStreamError {
            close()
            throw RedisError.connection(error.message)
        }
    }

    private static func message(of reader: UnsafeMutablePointer<redisReader>) -> String {
        withUnsafeBytes(of: reader.pointee.errstr) { bytes in
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
