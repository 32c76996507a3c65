import Foundation
import HailCore

/// One line of a trip's audit log: which change, by whom, when.
public struct TripEventRecord: Codable, Sendable, Hashable {
    /// The trip.
    public var tripID: String
    /// The version this change produced.
    public var version: Int
    /// The intent's name (`offerAccepted`, `riderCancels`, ...).
    public var intent: String
    /// Who asked (`rider:r-1`, `driver:d-1`, `system`).
    public var actor: String
    /// The state after the change.
    public var state: TripState
    /// Server time of the commit.
    public var at: Date
    /// What the intent's name does not say, kept apart so the name stays the one every reader matches on:
    /// `unverified` for an `arrived` or `started` no fresh fix could weigh; nil for most changes.
    public var detail: String?

    /// Creates an audit line.
    public init(
        tripID: String, version: Int, intent: String, actor: String, state: TripState, at: Date, detail: String? = nil
    ) {
        self.tripID = tripID
        self.version = version
        self.intent = intent
        self.actor = actor
        self.state = state
        self.at = at
        self.detail = detail
    }
}

/// Which request an idempotency key belongs to: the same key is only "the same request" for the same
/// principal on the same route.
public struct IdempotencyScope: Codable, Sendable, Hashable {
    /// `rider:r-1`.
    public var principal: String
    /// The route's name (`requestTrip`, `cancelTrip`, ...), plus the trip id for per-trip routes.
    public var route: String
    /// The client's key (a UUID).
    public var key: String

    /// Creates a scope.
    public init(principal: String, route: String, key: String) {
        self.principal = principal
        self.route = route
        self.key = key
    }
}

/// The answer given the first time a key was used, replayed byte for byte on every retry.
public struct StoredResponse: Codable, Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The response body.
    public var body: Data
    /// The request body it answered; a retry with a different body is refused (422).
    public var requestFingerprint: Data
    /// When it was stored.
    public var createdAt: Date

    /// Creates a stored response.
    public init(status: Int, body: Data, requestFingerprint: Data, createdAt: Date) {
        self.status = status
        self.body = body
        self.requestFingerprint = requestFingerprint
        self.createdAt = createdAt
    }
}

/// An idempotency key and the answer to replay for it.
public struct IdempotencyEntry: Sendable, Hashable {
    /// Whose key, on which route.
    public var scope: IdempotencyScope
    /// The answer.
    public var response: StoredResponse

    /// Creates an entry.
    public init(scope: IdempotencyScope, response: StoredResponse) {
        self.scope = scope
        self.response = response
    }
}

/// A change to commit atomically: the new record, its audit line, and the idempotent answer if any.
public struct TripCommit: Sendable, Hashable {
    /// The record after the change.
    public var record: TripRecord
    /// The version the store must hold for the commit to apply (nil: the trip must not exist yet).
    public var expectedVersion: Int?
    /// The audit line.
    public var event: TripEventRecord
    /// The key and answer to store in the same transaction.
    public var idempotency: IdempotencyEntry?

    /// Creates a commit.
    public init(record: TripRecord, expectedVersion: Int?, event: TripEventRecord, idempotency: IdempotencyEntry? = nil)
    {
        self.record = record
        self.expectedVersion = expectedVersion
        self.event = event
        self.idempotency = idempotency
    }
}

/// What a commit did.
public enum CommitOutcome: Sendable, Hashable {
    /// Written and durable.
    case committed
    /// The stored version was not the expected one (someone else changed the trip first); nothing written.
    case conflict
    /// The rider or the driver already has another active trip (the database's unique index on it refused the
    /// row); nothing written, the audit line and idempotency record included.
    case activeTripTaken(ActiveTripConflict)
}

/// Durable trips, their audit log, idempotency records and the push tokens of riders and drivers.
/// Embedded: SQLite; scaled: PostgreSQL.
public protocol TripStore: PushTokenStore {
    /// The trip with `id`.
    func record(id: String) async throws -> TripRecord?
    /// The rider's trip that is still active, if any.
    func activeRecord(riderID: String) async throws -> TripRecord?
    /// The driver's trip that is still active, if any.
    func activeRecord(driverID: String) async throws -> TripRecord?
    /// Every active trip (dispatch resumes its searches from these after a restart).
    func activeRecords() async throws -> [TripRecord]
    /// The active trips of `driverIDs` (the reconciler's bounded sweep reads only the drivers it compares).
    func activeRecords(driverIDs: [String]) async throws -> [TripRecord]
    /// The ids of the trips searching for a driver (dispatch adopts those no search lease covers, every few
    /// seconds); by default read from `activeRecords`.
    func searchingTripIDs() async throws -> [String]
    /// Applies `commit` atomically if the stored version matches and it leaves its rider and its driver at most
    /// one active trip each (enforced by the database, whatever any caller checked before); durable before it
    /// returns.
    func commit(_ commit: TripCommit) async throws -> CommitOutcome
    /// The trip's audit log, oldest first.
    func events(tripID: String) async throws -> [TripEventRecord]
    /// The answer stored for an idempotency key.
    func storedResponse(for scope: IdempotencyScope) async throws -> StoredResponse?
    /// Trips whose newest change, committed before `committedBefore`, is not yet marked published (its watchers
    /// told and its after-commit work done), oldest change first, at most `limit`.
    func unpublished(committedBefore: Date, limit: Int) async throws -> [TripRecord]
    /// Marks each trip's changes up to its version (`versions`, by trip id) as published; never lowers a mark.
    func markPublished(_ versions: [String: Int]) async throws
}

/// A position kept for a trip's driven distance.
public struct HistoryPoint: Codable, Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// Device time of the fix (orders backlog points among live ones).
    public var t: Date
    /// Server time of arrival.
    public var receivedAt: Date
    /// True when it came from the offline buffer.
    public var backlog: Bool
    /// The phone's direction of travel in degrees from north, nil when it gave none (the fare's match weighs it).
    public var heading: Double?
    /// The phone's speed in metres per second, nil when it gave none (says whether the heading means anything).
    public var speed: Double?
    /// True for the fix where the car stood when the trip started, which the server stores with the start: the fare's
    /// path begins there.
    public var standing: Bool

    /// Creates a point.
    public init(
        coordinate: Coordinate, t: Date, receivedAt: Date, backlog: Bool, heading: Double? = nil, speed: Double? = nil,
        standing: Bool = false
    ) {
        self.coordinate = coordinate
        self.t = t
        self.receivedAt = receivedAt
        self.backlog = backlog
        self.heading = heading
        self.speed = speed
        self.standing = standing
    }

    /// The point of a fix as the phone sent it; its heading and speed are kept when the phone knew them (not negative).
    public init(_ fix: LocationPoint, receivedAt: Date, backlog: Bool) {
        self.init(
            coordinate: fix.coordinate, t: fix.t, receivedAt: receivedAt, backlog: backlog,
            heading: fix.heading >= 0 && fix.heading.isFinite ? fix.heading : nil,
            speed: fix.speed >= 0 && fix.speed.isFinite ? fix.speed : nil)
    }
}

/// Every position of a trip, for distance and the fare. Embedded: SQLite; scaled: PostgreSQL.
public protocol LocationHistoryStore: Sendable {
    /// Appends points to a trip's history, ignoring points whose device time it already holds.
    func append(tripID: String, points: [HistoryPoint]) async throws
    /// Starts appending points and returns at once, without blocking: callable from any thread, the network
    /// loop's included. `whenCommitted` runs exactly once, after the points are durable or with the error (and
    /// then none of them was written), on a thread of the store's choosing.
    func append(
        tripID: String, points: [HistoryPoint], whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void)
    /// The trip's points in device-time order.
    func history(tripID: String) async throws -> [HistoryPoint]
    /// Returns once every append this node started before the call has committed or failed (a drain's last step).
    func appendsBefore() async
}

/// A location history kept in the same database as the trips, which can judge a batch against the committed trip: the
/// points join the trip's history only if, as they are written, that trip is under way with that driver. The ingest
/// names the trip from a node's copy of the driver's shared state (`DriverIngestState.trip`), which the node that
/// committed a change brings up to date only after the commit (and after its publish): a fix the app sent once it
/// showed the trip under way may reach a node whose copy still says the driver is on the way to the pickup. Judged
/// here, its place in the fare is decided by the commit, not by the copy (issue 37, I8).
public protocol UnderWayHistoryStore: LocationHistoryStore {
    /// Starts appending `points` to `tripID`'s history, kept only if, when they are written, the trip is `onTrip` with
    /// `driverID` as its driver; returns at once. `whenCommitted` runs exactly once: success once the points are
    /// durable or were judged not the trip's, or the error (and then none of them was written).
    func append(
        tripID: String, underWayBy driverID: String, points: [HistoryPoint],
        whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

extension LocationHistoryStore {
    /// Nothing to wait for in a store whose appends are committed before they return.
    public func appendsBefore() async {}

    /// Runs the async `append` in one task and reports its outcome, for stores with no batching of their own.
    public func append(
        tripID: String, points: [HistoryPoint], whenCommitted: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        guard !points.isEmpty else {
            whenCommitted(.success(()))
            return
        }
        Task {
            do {
                try await append(tripID: tripID, points: points)
                whenCommitted(.success(()))
            } catch {
                whenCommitted(.failure(error))
            }
        }
    }
}

extension TripStore {
    /// The searching trips among the active ones.
    public func searchingTripIDs() async throws -> [String] {
        try await activeRecords().filter { $0.trip.state == .searching }.map(\.trip.id)
    }
}

extension TripStore {
    /// Every active trip, filtered: right for a store in this process's memory or file; a shared store asks for
    /// only these.
    public func activeRecords(driverIDs: [String]) async throws -> [TripRecord] {
        let wanted = Set(driverIDs)
        return try await activeRecords().filter { $0.driverID.map(wanted.contains) ?? false }
    }
}
