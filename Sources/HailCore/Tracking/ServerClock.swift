import Foundation

/// Estimates how far the device clock is from the server's, so ages are measured on the server's clock.
///
/// Each sample is one exchange: the device sent at `sentAt`, the server stamped `serverTime`, the answer
/// arrived at `receivedAt` (both device times). Assuming the server stamped halfway through the round
/// trip, offset = serverTime - (sentAt + rtt / 2), with an error of at most rtt / 2, so the sample with
/// the smallest round trip among the recent ones is the best estimate.
public struct ServerClock: Sendable, Hashable {
    /// One timed exchange with the server.
    public struct Sample: Sendable, Hashable {
        /// Device time when the request left (for a stream: when the connection was opened).
        public var sentAt: Date
        /// The server's clock in its answer (`hello.serverTime`, a response's `Date`).
        public var serverTime: Date
        /// Device time when the answer arrived.
        public var receivedAt: Date

        /// Creates a sample.
        public init(sentAt: Date, serverTime: Date, receivedAt: Date) {
            self.sentAt = sentAt
            self.serverTime = serverTime
            self.receivedAt = receivedAt
        }

        /// The round trip in seconds.
        public var roundTrip: TimeInterval { receivedAt.timeIntervalSince(sentAt) }

        /// serverTime minus the device time at the round trip's midpoint.
        public var offset: TimeInterval {
            serverTime.timeIntervalSince(sentAt) - roundTrip / 2
        }
    }

    /// How many recent samples are kept; older ones may predate a change of the device clock.
    public let capacity: Int
    /// The kept samples, oldest first.
    public private(set) var samples: [Sample] = []

    /// Creates a clock with no samples; `capacity` recent samples are compared.
    public init(capacity: Int = 8) { self.capacity = max(1, capacity) }

    /// Adds a sample; one with a negative round trip (the device clock stepped mid-exchange) is refused.
    @discardableResult
    public mutating func add(_ sample: Sample) -> Bool {
        guard sample.roundTrip >= 0, sample.roundTrip.isFinite, sample.offset.isFinite else { return false }
        samples.append(sample)
        if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        return true
    }

    /// The best sample: the smallest round trip, the newest of equals.
    public var bestSample: Sample? {
        samples.reversed().min { $0.roundTrip < $1.roundTrip }
    }

    /// Seconds to add to the device clock to get the server's; 0 before any sample.
    public var offset: TimeInterval { bestSample?.offset ?? 0 }

    /// The server's clock now, given the device clock now.
    public func serverNow(deviceNow: Date) -> Date { deviceNow.addingTimeInterval(offset) }

    /// The device time at which the server's clock reads `serverTime`.
    public func deviceTime(forServerTime serverTime: Date) -> Date { serverTime.addingTimeInterval(-offset) }
}
