import Foundation

/// A clock shared by every node that a node's own can be compared with: Redis's `TIME`, PostgreSQL's `now()`.
public protocol ClockReference: Sendable {
    /// The reference's name, the gauge's `reference` label (`redis`, `postgres`).
    var name: String { get }
    /// The reference's time now, as it answers.
    func referenceTime() async throws -> Date
}

/// How far a node's clock is from a reference, from one exchange: the reference answered `reference` somewhere
/// between the node's `sentAt` and `sentAt + roundTrip`, so it is taken to have answered half-way. Pure.
public struct ClockOffsetSample: Sendable, Hashable {
    /// The node's clock minus the reference's, seconds (positive: the node is ahead).
    public var offset: TimeInterval
    /// The exchange's round trip, seconds: the offset is right to within half of it.
    public var roundTrip: TimeInterval

    /// The sample of an exchange sent at `sentAt` (the node's clock), answered `reference`, `roundTrip` long (the
    /// monotonic clock's measure).
    public init(sentAt: Date, roundTrip: TimeInterval, reference: Date) {
        self.roundTrip = max(0, roundTrip)
        offset = sentAt.addingTimeInterval(self.roundTrip / 2).timeIntervalSince(reference)
    }

    /// Of several samples, the one with the quickest round trip (the least uncertain); nil for none.
    public static func best(_ samples: [ClockOffsetSample]) -> ClockOffsetSample? {
        samples.min { $0.roundTrip < $1.roundTrip }
    }
}
