import Foundation

/// The driver's durable queue of trip actions: each waits here, with its idempotency key, until the
/// server has confirmed or refused it.
///
/// Strictly first in, first out, with at most one entry in flight: "arrived" must land before "started",
/// and the server would refuse them in the other order. A failed attempt is retried with the same key at
/// the time `Backoff` gives, for as long as it takes: "Trip ended" tapped in a tunnel must still arrive.
/// A refusal (an HTTP 4xx) retires the entry with a reason the driver's screen can show.
///
/// The runtime persists the whole value (it is `Codable`) after every change. Which entry was in flight
/// is deliberately not persisted: after a kill nobody knows whether that request landed, and sending it
/// again with the same key is exactly what idempotency keys are for.
public struct Outbox: Codable, Sendable, Hashable {
    /// One action waiting for the server.
    public struct Entry: Codable, Sendable, Hashable, Identifiable {
        /// The idempotency key, sent on the first attempt and every retry.
        public let key: UUID
        /// What the driver asked for.
        public let intent: DriverIntent
        /// When the driver tapped, for ordering logs and showing how long it has waited.
        public let enqueuedAt: Date
        /// How many attempts have failed so far.
        public internal(set) var failedAttempts: Int
        /// The earliest time of the next attempt; nil before the first failure.
        public internal(set) var retryAt: Date?
        /// True when the last failure was the network (no answer), so connectivity returning wakes it.
        public internal(set) var waitingForNetwork: Bool

        /// The idempotency key identifies the entry.
        public var id: UUID { key }
    }

    /// An action the server refused; kept until the driver's screen has shown it.
    public struct Rejection: Codable, Sendable, Hashable, Identifiable {
        /// The refused entry's idempotency key.
        public let key: UUID
        /// What the driver had asked for.
        public let intent: DriverIntent
        /// The server's message, in its words.
        public let reason: String
        /// The server's error code (an `APIError` code such as `invalid_state`), for the app to word the refusal
        /// in the driver's language; nil when it gave none (and in states saved before codes were kept).
        public let code: String?

        /// Creates a rejection record.
        public init(key: UUID, intent: DriverIntent, reason: String, code: String? = nil) {
            self.key = key
            self.intent = intent
            self.reason = reason
            self.code = code
        }

        /// The idempotency key identifies the rejection.
        public var id: UUID { key }
    }

    /// What the runtime should do now.
    public enum Next: Sendable, Hashable {
        /// Send this entry now, with its key; report the result with `succeeded`, `failed` or `rejected`.
        case send(Entry)
        /// The head entry is backing off: call `next` again at this time (or when connectivity returns).
        case wait(until: Date)
        /// This entry was handed out and its result has not been reported yet.
        case awaitingResult(Entry)
        /// Nothing to send.
        case idle
    }

    /// The actions not yet confirmed, oldest first.
    public private(set) var entries: [Entry]
    /// Refused actions the screen has not dismissed yet, oldest first.
    public private(set) var rejections: [Rejection]
    /// The retry schedule.
    public var backoff: Backoff
    private var inFlightKey: UUID? = nil

    private enum CodingKeys: String, CodingKey {
        case entries, rejections, backoff
    }

    /// Creates an empty outbox.
    public init(backoff: Backoff = .standard) {
        self.entries = []
        self.rejections = []
        self.backoff = backoff
    }

    /// The actions waiting for the server, oldest first: the screen shows them optimistically ("Ending trip...").
    public var pendingIntents: [DriverIntent] { entries.map(\.intent) }

    /// True when `kind` for `tripID` is waiting for the server.
    public func isPending(_ kind: DriverIntent.Kind, tripID: String) -> Bool {
        entries.contains { $0.intent == DriverIntent(kind, tripID: tripID) }
    }

    /// The entry whose result the runtime owes, if any.
    public var inFlight: Entry? {
        guard let inFlightKey else { return nil }
        return entries.first { $0.key == inFlightKey }
    }

    /// Queues `intent` under the idempotency key `key`; false (and no change) when it is already queued.
    ///
    /// The same intent for the same trip while one is pending counts as already queued: a second tap on
    /// "End trip" during a tunnel would otherwise reach the server as a second request and come back
    /// refused, showing an error for an action that succeeded.
    @discardableResult
    public mutating func enqueue(_ intent: DriverIntent, key: UUID, now: Date) -> Bool {
        if entries.contains(where: { $0.key == key || $0.intent == intent }) { return false }
        if rejections.contains(where: { $0.key == key }) { return false }
        entries.append(
            Entry(key: key, intent: intent, enqueuedAt: now, failedAttempts: 0, retryAt: nil, waitingForNetwork: false)
        )
        return true
    }

    /// What to do at `now`; handing out an entry marks it in flight until its result is reported.
    public mutating func next(now: Date) -> Next {
        if let inFlight { return .awaitingResult(inFlight) }
        guard let head = entries.first else { return .idle }
        if let retryAt = head.retryAt, now < retryAt { return .wait(until: retryAt) }
        inFlightKey = head.key
        return .send(head)
    }

    /// The server confirmed the entry (2xx, including a replay of an earlier success): it retires.
    public mutating func succeeded(key: UUID) {
        entries.removeAll { $0.key == key }
        if inFlightKey == key { inFlightKey = nil }
    }

    /// The attempt failed without a verdict; the entry is retried at `now` plus the backoff delay.
    ///
    /// `transient` is true when the network gave no answer (offline, timeout): such an entry is also
    /// woken by `connectivityRestored`. False means the server answered but could not take it now
    /// (5xx, 429): it waits out its backoff, because the link was never the problem. `retryAfter` is the
    /// server's `Retry-After` in seconds when it sent one: the entry waits at least that (bounded and spread,
    /// `Backoff.delay(afterAttempt:retryAfter:using:)`), since the server said it cannot take it sooner.
    public mutating func failed<G: RandomNumberGenerator>(
        key: UUID,
        now: Date,
        transient: Bool,
        retryAfter: TimeInterval? = nil,
        using generator: inout G
    ) {
        if inFlightKey == key { inFlightKey = nil }
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
        entries[index].failedAttempts += 1
        let delay = backoff.delay(
            afterAttempt: entries[index].failedAttempts, retryAfter: retryAfter, using: &generator)
        entries[index].retryAt = now.addingTimeInterval(delay)
        entries[index].waitingForNetwork = transient
    }

    /// The server refused the entry (4xx): it retires, and `reason` waits in `rejections` for the screen.
    public mutating func rejected(key: UUID, reason: String, code: String? = nil) {
        if inFlightKey == key { inFlightKey = nil }
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
        let entry = entries.remove(at: index)
        rejections.append(Rejection(key: key, intent: entry.intent, reason: reason, code: code))
    }

    /// The network is back: an entry that failed for lack of it becomes due at `now`.
    ///
    /// Without this a driver leaving a tunnel could wait up to the 30 s cap before "Trip ended" is sent.
    public mutating func connectivityRestored(now: Date) {
        for index in entries.indices where entries[index].waitingForNetwork {
            if let retryAt = entries[index].retryAt, retryAt > now { entries[index].retryAt = now }
        }
    }

    /// The screen has shown the rejection with this key: forget it.
    public mutating func dismissRejection(key: UUID) {
        rejections.removeAll { $0.key == key }
    }
}
