import Foundation
import HailServer
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The scaled bus: Redis pub/sub on channels `trip:<id>` and `driver:<id>`, so a message published on one
/// node reaches subscribers on every node. Each bus holds one subscriber connection, read by one thread of
/// its own that fans messages out to this process's streams.
public final class RedisTripBus: TripBus {
    private struct Wire: Codable {
        var kind: BusMessage.Kind
        var text: String
        var endsStream: Bool
        var publishedAt: Double?
    }

    private struct Listener {
        var continuation: AsyncStream<BusMessage>.Continuation
        /// False until Redis confirms the SUBSCRIBE this listener waits for: messages read before that
        /// confirmation were published before it subscribed (a previous listener's leftovers).
        var live: Bool
    }

    private struct State {
        var streams: [String: [UInt64: Listener]] = [:]
        /// Channels Redis has confirmed for this connection.
        var subscribed: Set<String> = []
        /// Channels with a SUBSCRIBE in flight, and who waits for its confirmation. At most one per channel,
        /// so each confirmation answers exactly one request.
        var pending: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// Commands for the reader thread to send (only it touches the subscriber connection).
        var outbox: [[String]] = []
        var nextID: UInt64 = 0
        var closed = false
    }

    private let publisher: RedisClient
    private let subscriber: RedisConnection
    private let state = Mutex(State())
    private let prefix: String
    // A pipe that wakes the reader thread out of `poll` when there are commands to send or on close.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// A bus on the server at `endpoint`; `prefix` goes before every channel name (tests isolate with it).
    public init(endpoint: RedisEndpoint, prefix: String = "") throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RedisError.connection("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.prefix = prefix
        publisher = RedisClient(endpoint: endpoint, size: 1)
        subscriber = RedisConnection(endpoint: endpoint)
        let thread = Thread { [self] in self.readLoop() }
        thread.name = "hail-redis-subscriber"
        thread.start()
    }

    // The pipe outlives the reader thread so a late `wake()` never writes to a reused descriptor.
    deinit {
        closeDescriptor(wakeRead)
        closeDescriptor(wakeWrite)
    }

    /// Publishes `message` to every node's subscribers of `topic`.
    public func publish(_ message: BusMessage, to topic: BusTopic) async {
        let wire = Wire(
            kind: message.kind, text: message.text, endsStream: message.endsStream,
            publishedAt: message.publishedAt?.timeIntervalSince1970)
        guard let data = try? JSONEncoder().encode(wire) else { return }
        let command = ["PUBLISH", prefix + topic.description, String(decoding: data, as: UTF8.self)]
        // The protocol cannot fail a publish: with Redis down the watchers miss this message and catch up
        // from the trip's state when their socket reconnects, as after any gap.
        _ = try? await publisher.run { connection in try connection.command(command).checked() }
    }

    /// Subscribes to `topic`; returns once Redis has confirmed the channel, so nothing published after
    /// this returns is missed.
    public func subscribe(to topic: BusTopic) async -> BusSubscription {
        let channel = prefix + topic.description
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream()
        let id: UInt64? = state.withLock { state in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.streams[channel, default: [:]][state.nextID] = Listener(
                continuation: continuation, live: state.subscribed.contains(channel))
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return BusSubscription(messages: stream) {}
        }
        continuation.onTermination = { [weak self] _ in self?.remove(channel, id) }
        await waitUntilSubscribed(channel)
        return BusSubscription(messages: stream) { [weak self] in self?.remove(channel, id) }
    }

    /// Stops the reader thread, ends every stream and closes the connections.
    public func close() {
        state.withLock { $0.closed = true }
        wake()
        publisher.close()
    }

    private func waitUntilSubscribed(_ channel: String) async {
        await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.closed || state.subscribed.contains(channel) { return true }
                if state.pending[channel] != nil {
                    state.pending[channel]?.append(ready)
                } else {
                    state.pending[channel] = [ready]
                    state.outbox.append(["SUBSCRIBE", channel])
                }
                return false
            }
            if resumeNow { ready.resume() } else { wake() }
        }
    }

    private func remove(_ channel: String, _ id: UInt64) {
        let continuation = state.withLock { state -> AsyncStream<BusMessage>.Continuation? in
            guard let continuation = state.streams[channel]?.removeValue(forKey: id)?.continuation else { return nil }
            if state.streams[channel]?.isEmpty == true {
                state.streams[channel] = nil
                // With a SUBSCRIBE in flight, its confirmation sends the UNSUBSCRIBE instead (see `handle`).
                if state.pending[channel] == nil, state.subscribed.remove(channel) != nil {
                    state.outbox.append(["UNSUBSCRIBE", channel])
                }
            }
            return continuation
        }
        guard let continuation else { return }
        wake()
        // Outside the lock: finishing runs `onTermination`, which comes back here.
        continuation.finish()
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up; losing this byte loses nothing.
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: The reader thread, sole user of `subscriber`.

    private func readLoop() {
        while !state.withLock({ $0.closed }) {
            do {
                try subscriber.connect()
                resubscribeAfterConnect()
                try pump()
            } catch {
                subscriber.close()
                // Redis is unreachable: every channel must be subscribed again on the next connection.
                state.withLock { $0.subscribed.removeAll() }
                waitForRetry()
            }
        }
        subscriber.close()
        let (streams, waiters) = state.withLock { state in
            defer {
                state.streams = [:]
                state.pending = [:]
            }
            return (state.streams.values.flatMap(\.values).map(\.continuation), state.pending.values.flatMap { $0 })
        }
        for waiter in waiters { waiter.resume() }
        for stream in streams { stream.finish() }
    }

    /// After a (re)connect: forget commands meant for the old connection and subscribe every channel
    /// that has local streams or waiters.
    private func resubscribeAfterConnect() {
        state.withLock { state in
            state.outbox = []
            state.subscribed = []
            for channel in Set(state.streams.keys).union(state.pending.keys) {
                state.pending[channel, default: []] += []
                state.outbox.append(["SUBSCRIBE", channel])
            }
        }
    }

    private func pump() throws {
        while true {
            let (commands, closed) = state.withLock { state in
                defer { state.outbox = [] }
                return (state.outbox, state.closed)
            }
            if closed { return }
            if !commands.isEmpty {
                for command in commands { try subscriber.enqueue(command) }
                try subscriber.flush()
            }
            while let reply = try subscriber.bufferedReply() { handle(reply) }
            var fds = [
                pollfd(fd: subscriber.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                throw RedisError.connection("poll: \(String(cString: strerror(errno)))")
            }
            if fds[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            if fds[0].revents != 0 { try subscriber.readAvailable() }
        }
    }

    private func handle(_ reply: RedisReply) {
        guard let parts = reply.elements, parts.count == 3, let kind = parts[0].text, let channel = parts[1].text
        else { return }
        switch kind {
        case "message":
            guard let payload = parts[2].text, let wire = try? JSONDecoder().decode(Wire.self, from: Data(payload.utf8))
            else { return }
            let message = BusMessage(
                kind: wire.kind, text: wire.text, endsStream: wire.endsStream,
                publishedAt: wire.publishedAt.map(Date.init(timeIntervalSince1970:)))
            state.withLock { state in
                guard let streams = state.streams[channel] else { return }
                for listener in streams.values where listener.live { listener.continuation.yield(message) }
            }
        case "subscribe":
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                let waiters = state.pending.removeValue(forKey: channel) ?? []
                if state.streams[channel] == nil {
                    // Everyone left while the SUBSCRIBE was in flight.
                    state.outbox.append(["UNSUBSCRIBE", channel])
                } else {
                    state.subscribed.insert(channel)
                    state.streams[channel] = state.streams[channel]?.mapValues {
                        Listener(continuation: $0.continuation, live: true)
                    }
                }
                return waiters
            }
            for waiter in waiters { waiter.resume() }
        default:
            break
        }
    }

    /// Waits before reconnecting, waking early on close; this is the bus's own thread, not a test.
    private func waitForRetry() {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, 500)
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }
}

/// `close(2)`, out of reach of the bus's own `close()` inside the class.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
