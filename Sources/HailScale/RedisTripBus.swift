import Foundation
import HailServer
import HailThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The scaled bus: Redis pub/sub on channels `trip:<id>` and `driver:<id>`, so a message published on one
/// node reaches subscribers on every node. Each bus holds one subscriber connection, read by one thread of
/// its own that fans messages out to this process's streams.
///
/// Redis pub/sub keeps nothing: a message published while a subscriber's connection is down is gone. So
/// when the subscriber connection drops, every local stream is ended (their sockets close and the apps
/// resync from the trip store, which holds every trip change), and a publish that fails is retried once
/// on a fresh connection, then counted (`hail_bus_publish_failures_total`) and logged. A Redis that goes
/// silent (paused, or behind a path that drops packets) is a lost connection too: the reader sends a `PING`
/// after a second with nothing read and drops the connection when it goes unanswered for the endpoint's
/// `timeout` (`SubscriberWatch`), and a subscribe still waiting for its confirmation then returns an ended
/// stream, so a stream's setup never waits longer than that.
public final class RedisTripBus: TripBus {
    /// Shared by every node.
    public var scope: StateScope { .deployment }

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

    private struct Health {
        var registry: MetricsRegistry?
        var failingSince: Int = 0
    }

    private let publisher: RedisClient
    private let subscriber: RedisConnection
    private let endpoint: RedisEndpoint
    /// The reader's silence before a `PING`.
    static let quietBeforePing = Duration.seconds(1)
    private let state = Mutex(State())
    private let health = Mutex(Health())
    private let log: @Sendable (String) -> Void
    private let prefix: String
    // A pipe that wakes the reader thread out of `poll` when there are commands to send or on close.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// A bus on the server at `endpoint`; `prefix` goes before every channel name (tests isolate with it).
    /// `log` gets one line when publishing starts failing and one when it recovers.
    public init(
        endpoint: RedisEndpoint, prefix: String = "",
        log: @escaping @Sendable (String) -> Void = {
            try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8))
        }
    ) throws {
        self.log = log
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RedisError.connection("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.prefix = prefix
        self.endpoint = endpoint
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

    /// The channel of `topic` under `prefix`.
    static func channel(_ topic: BusTopic, prefix: String) -> String { prefix + topic.description }

    /// Publishes `message` to every node's subscribers of `topic`.
    public func publish(_ message: BusMessage, to topic: BusTopic) async {
        _ = await publishConfirmed(message, to: topic)
    }

    /// Publishes `message`; false when Redis could not take it after one retry.
    public func publishConfirmed(_ message: BusMessage, to topic: BusTopic) async -> Bool {
        let payload = BusPayloadText.payload(message)
        let command = ["PUBLISH", Self.channel(topic, prefix: prefix), payload]
        // A failed command drops its connection, so the retry reconnects. If that fails too the watchers
        // miss this message; their streams ended when the subscriber lost Redis, and they resync from the
        // trip store when their socket reconnects. A trip change's publish is done again by the reconciler.
        for attempt in 1...2 {
            do {
                _ = try await publisher.run { connection in try connection.command(command).checked() }
                publishSucceeded()
                return true
            } catch {
                if attempt == 2 { publishFailed(message.kind, error: error) }
            }
        }
        return false
    }

    /// Counts failed publishes in `registry` (`hail_bus_publish_failures_total`, by message kind).
    public func reportFailures(to registry: MetricsRegistry) {
        Self.declareMetrics(in: registry)
        health.withLock { $0.registry = registry }
    }

    /// Declares the metrics a Redis bus reports, so they are exposed (empty) before the first failure.
    public static func declareMetrics(in registry: MetricsRegistry) {
        registry.declare(
            "hail_bus_publish_failures_total", type: "counter",
            help: "Bus messages that could not be published to Redis (after one retry), by kind.")
    }

    private func publishFailed(_ kind: BusMessage.Kind, error: any Error) {
        let (registry, first) = health.withLock { health in
            health.failingSince += 1
            return (health.registry, health.failingSince == 1)
        }
        registry?.add("hail_bus_publish_failures_total", labels: ["kind": "\(kind)"])
        let reason = "\(error)".replacingOccurrences(of: "\"", with: "'")
        if first { log(#"{"event":"bus_publish_failing","error":"\#(reason)"}"#) }
    }

    private func publishSucceeded() {
        let failed = health.withLock { health in
            defer { health.failingSince = 0 }
            return health.failingSince
        }
        if failed > 0 { log(#"{"event":"bus_publish_recovered","failed":\#(failed)}"#) }
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
                // Redis is unreachable: every channel must be subscribed again on the next connection, and
                // what was published meanwhile is lost, so the streams end and their clients resync. A
                // subscribe waiting for its confirmation returns now, its stream ended with the others.
                let (lost, waiters) = state.withLock {
                    state -> ([AsyncStream<BusMessage>.Continuation], [CheckedContinuation<Void, Never>]) in
                    state.subscribed.removeAll()
                    defer {
                        state.streams = [:]
                        state.pending = [:]
                    }
                    return (
                        state.streams.values.flatMap(\.values).map(\.continuation), state.pending.values.flatMap { $0 }
                    )
                }
                for stream in lost { stream.finish() }
                for waiter in waiters { waiter.resume() }
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
        let opened = ContinuousClock.now
        var watch = SubscriberWatch(quiet: Self.quietBeforePing, deadline: endpoint.timeout, now: .zero)
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
            while let reply = try subscriber.bufferedReply() {
                watch.heard(at: ContinuousClock.now - opened)
                handle(reply)
            }
            var wait = Duration.zero
            switch watch.next(at: ContinuousClock.now - opened) {
            case .fail:
                throw RedisError.connection(
                    "\(endpoint.host):\(endpoint.port) did not answer a PING within \(endpoint.timeout.secondsText) s")
            case .ping:
                // Allowed while subscribed; its answer is an array the reply handler ignores.
                try subscriber.enqueue(["PING"])
                try subscriber.flush()
                continue
            case .wait(let duration):
                wait = duration
            }
            var fds = [
                pollfd(fd: subscriber.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
            guard poll(&fds, 2, Int32(clamping: milliseconds + 1)) >= 0 else {
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
            guard let payload = parts[2].text, let message = BusPayloadText.message(from: payload) else { return }
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
