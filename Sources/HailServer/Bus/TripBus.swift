import Foundation
import HailNet

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

/// Publish/subscribe between whoever changes a trip or moves a driver and the sockets watching them.
/// Embedded: `InProcessTripBus`; scaled: Redis pub/sub, so a driver on node A reaches a rider on node B.
public protocol TripBus: Sendable {
    /// Delivers `message` to every current subscriber of `topic`.
    func publish(_ message: BusMessage, to topic: BusTopic) async
    /// Subscribes to `topic`; the stream ends when the subscription is cancelled or the bus shuts down.
    func subscribe(to topic: BusTopic) async -> BusSubscription
}

/// A live subscription: its messages, and how to end it.
public struct BusSubscription: Sendable {
    /// The messages, in publish order.
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

/// The embedded bus: subscribers in this process, delivery in publish order.
public actor InProcessTripBus: TripBus {
    private var subscribers: [BusTopic: [UInt64: AsyncStream<BusMessage>.Continuation]] = [:]
    private var nextID: UInt64 = 0

    /// Creates an empty bus.
    public init() {}

    /// How many subscriptions `topic` has.
    public func subscriberCount(_ topic: BusTopic) -> Int { subscribers[topic]?.count ?? 0 }

    /// Delivers `message` to every subscriber of `topic`.
    public func publish(_ message: BusMessage, to topic: BusTopic) {
        guard let listeners = subscribers[topic] else { return }
        for continuation in listeners.values { continuation.yield(message) }
    }

    /// Subscribes to `topic`.
    public func subscribe(to topic: BusTopic) -> BusSubscription {
        nextID += 1
        let id = nextID
        // Unbounded here: the consumer moves each message straight into the socket's bounded queues,
        // which is where the drop-oldest-position rule lives.
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream()
        subscribers[topic, default: [:]][id] = continuation
        continuation.onTermination = { _ in Task { await self.remove(topic, id) } }
        return BusSubscription(messages: stream) { await self.remove(topic, id) }
    }

    private func remove(_ topic: BusTopic, _ id: UInt64) {
        guard let continuation = subscribers[topic]?.removeValue(forKey: id) else { return }
        if subscribers[topic]?.isEmpty == true { subscribers[topic] = nil }
        continuation.finish()
    }
}
