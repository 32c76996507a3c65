import Foundation
import HailNet
import Synchronization

/// Where a message is published: one trip's stream (riders, share viewers) or one driver's stream.
public enum BusTopic: Sendable, Hashable, CustomStringConvertible {
    /// Everyone watching a trip.
    case trip(String)
    /// One driver's app.
    case driver(String)

    /// `trip:t-1` or `driver:d-1`, also the Redis channel name in the scaled deployment.
    public var description: String {
        switch self {
        case .trip(let id): return "trip:\(id)"
        case .driver(let id): return "driver:\(id)"
        }
    }
}

/// A frame to deliver, encoded once for every subscriber.
public struct BusMessage: Sendable, Hashable {
    /// How a slow subscriber may treat it.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Trip changes and offers: never dropped; a subscriber that cannot keep up is disconnected.
        case essential
        /// Positions: a newer one supersedes it, so a slow subscriber may lose it.
        case disposable
    }

    /// How a slow subscriber may treat it.
    public var kind: Kind
    /// True for the last message of a trip's stream (the trip reached a final state).
    public var endsStream: Bool
    /// Server time of publishing, for the publish-to-send latency metric.
    public var publishedAt: Date?
    /// The frame, encoded once: every subscriber of this message gets a copy of this struct, and all copies
    /// share one WebSocket buffer, so a fan-out to many sockets writes the same bytes without copying them.
    let frame: EncodedFrame

    /// Creates a message.
    public init(kind: Kind, text: String, endsStream: Bool = false, publishedAt: Date? = nil) {
        self.kind = kind
        self.frame = EncodedFrame(text)
        self.endsStream = endsStream
        self.publishedAt = publishedAt
    }

    /// The encoded WebSocket text frame (one JSON object).
    public var text: String { frame.text }

    /// Messages are equal when they say the same thing the same way.
    public static func == (lhs: BusMessage, rhs: BusMessage) -> Bool {
        lhs.kind == rhs.kind && lhs.text == rhs.text && lhs.endsStream == rhs.endsStream
            && lhs.publishedAt == rhs.publishedAt
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(text)
        hasher.combine(endsStream)
        hasher.combine(publishedAt)
    }
}

/// A frame's text and the one socket buffer built from it (with libwebsockets' header room).
final class EncodedFrame: Sendable {
    let text: String
    let shared: SharedMessage

    init(_ text: String) {
        self.text = text
        shared = SharedMessage(text: text)
    }
}

/// Where a subscriber takes its messages: called on the publisher's thread, so it must only queue (a
/// socket's send queue), never block or wait.
public typealias BusSink = @Sendable (BusMessage) -> Void

/// Publish/subscribe between whoever changes a trip or moves a driver and the sockets watching them.
/// Embedded: `InProcessTripBus`; scaled: Redis pub/sub, so a driver on node A reaches a rider on node B.
public protocol TripBus: Sendable {
    /// Whether every node sees this state or only this process (`ServerServices.make` refuses a mix).
    var scope: StateScope { get }

    /// Delivers `message` to every current subscriber of `topic`.
    func publish(_ message: BusMessage, to topic: BusTopic) async
    /// Publishes `message` and says whether the bus took it (false: it could not reach its broker), so work
    /// that must not be lost (a trip change's publish) can be done again later.
    func publishConfirmed(_ message: BusMessage, to topic: BusTopic) async -> Bool
    /// Subscribes to `topic`; the stream ends when the subscription is cancelled or the bus shuts down.
    func subscribe(to topic: BusTopic) async -> BusSubscription
    /// Subscribes `sink` to `topic`: every message is handed to it as it is published, with no task or
    /// stream in between where the bus can (the in-process bus calls it on the publishing thread).
    /// `onEnd` runs once if the bus ends the subscription itself (a lost Redis link), never after `cancel`.
    func subscribe(to topic: BusTopic, sink: @escaping BusSink, onEnd: @escaping @Sendable () -> Void) async
        -> BusSubscription
}

extension TripBus {
    /// Publishes; a bus that cannot fail (in process) always took it.
    public func publishConfirmed(_ message: BusMessage, to topic: BusTopic) async -> Bool {
        await publish(message, to: topic)
        return true
    }

    /// The stream subscription pumped into `sink` by one task: for buses whose subscriptions are streams.
    public func subscribe(to topic: BusTopic, sink: @escaping BusSink, onEnd: @escaping @Sendable () -> Void) async
        -> BusSubscription
    {
        let subscription = await subscribe(to: topic)
        let cancelled = Atomic<Bool>(false)
        let pump = Task {
            for await message in subscription.messages { sink(message) }
            if !cancelled.load(ordering: .acquiring) { onEnd() }
        }
        return BusSubscription(messages: AsyncStream { $0.finish() }) {
            cancelled.store(true, ordering: .releasing)
            pump.cancel()
            await subscription.cancel()
        }
    }
}

/// A live subscription: its messages, and how to end it.
public struct BusSubscription: Sendable {
    /// The messages, in publish order (empty and finished for a sink subscription).
    public let messages: AsyncStream<BusMessage>
    private let onCancel: @Sendable () async -> Void

    /// Creates a subscription.
    public init(messages: AsyncStream<BusMessage>, onCancel: @escaping @Sendable () async -> Void) {
        self.messages = messages
        self.onCancel = onCancel
    }

    /// Ends the subscription; its stream finishes.
    public func cancel() async { await onCancel() }
}

/// The embedded bus: subscribers in this process, each message handed to every subscriber of its topic on
/// the publishing thread, in publish order for each publisher.
///
/// Topics are spread over `ShardedMap`'s locks, so publishers of different trips (drivers on different
/// loops) do not queue behind each other; sinks are called outside the lock.
public final class InProcessTripBus: TripBus {
    private struct Subscriber: Sendable {
        let id: UInt64
        let sink: BusSink
        let finish: (@Sendable () -> Void)?
    }

    private let topics = ShardedMap<BusTopic, [Subscriber]>()
    private let nextID = Atomic<UInt64>(0)

    /// Creates an empty bus.
    public init() {}

    /// How many subscriptions `topic` has.
    public func subscriberCount(_ topic: BusTopic) async -> Int { topics[topic]?.count ?? 0 }

    /// Delivers `message` to every subscriber of `topic`.
    public func publish(_ message: BusMessage, to topic: BusTopic) async {
        publishNow(message, to: topic)
    }

    /// Delivers `message` to every subscriber of `topic` before returning, on the calling thread.
    public func publishNow(_ message: BusMessage, to topic: BusTopic) {
        guard let listeners = topics[topic] else { return }
        for listener in listeners { listener.sink(message) }
    }

    /// Subscribes to `topic`.
    public func subscribe(to topic: BusTopic) async -> BusSubscription {
        // Unbounded here: the consumer moves each message straight into the socket's bounded queues,
        // which is where the drop-oldest-position rule lives.
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream()
        let id = add(topic, sink: { continuation.yield($0) }, finish: { continuation.finish() })
        continuation.onTermination = { [weak self] _ in self?.remove(topic, id) }
        return BusSubscription(messages: stream) { [weak self] in self?.remove(topic, id) }
    }

    /// Subscribes `sink` to `topic`; the in-process bus never ends a subscription itself.
    public func subscribe(to topic: BusTopic, sink: @escaping BusSink, onEnd: @escaping @Sendable () -> Void) async
        -> BusSubscription
    {
        subscribeNow(to: topic, sink: sink)
    }

    /// Subscribes `sink` to `topic` before returning; cancel the result (or call `unsubscribe`) to end it.
    public func subscribeNow(to topic: BusTopic, sink: @escaping BusSink) -> BusSubscription {
        let id = add(topic, sink: sink, finish: nil)
        return BusSubscription(messages: AsyncStream { $0.finish() }) { [weak self] in self?.remove(topic, id) }
    }

    private func add(_ topic: BusTopic, sink: @escaping BusSink, finish: (@Sendable () -> Void)?) -> UInt64 {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        topics.withValue(topic) { listeners in
            listeners = (listeners ?? []) + [Subscriber(id: id, sink: sink, finish: finish)]
        }
        return id
    }

    private func remove(_ topic: BusTopic, _ id: UInt64) {
        let removed = topics.withValue(topic) { listeners -> Subscriber? in
            guard let index = listeners?.firstIndex(where: { $0.id == id }) else { return nil }
            let subscriber = listeners?.remove(at: index)
            if listeners?.isEmpty == true { listeners = nil }
            return subscriber
        }
        removed?.finish?()
    }
}

extension TripBus {
    /// This process's own, unless the conformer says otherwise.
    public var scope: StateScope { .process }
}
