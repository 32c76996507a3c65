import Foundation
import HailCore
import HailProtocol
import HailTime

/// The one place trips change. Each change is decided by HailCore's `TripRules`, committed to the store
/// (with its audit line and idempotent answer, atomically) and only then acknowledged and published.
///
/// What follows a commit (the publish, the observers: the driver's record, dispatch, push) cannot be lost: the
/// store keeps each trip's published version beside its version, a change is marked published only once its
/// publish went through (`flushPublished`, in batches), and the reconciler redelivers any change still unmarked
/// a while after its commit (`redeliver`): a publish that failed, a lost commit reply, a crash between the two.
public actor TripAuthority {
    /// What a change produced.
    public struct Outcome: Sendable, Hashable {
        /// The HTTP status to answer with.
        public var status: Int
        /// The response body (the trip's JSON).
        public var body: Data
        /// True when this answer was replayed for a repeated idempotency key.
        public var replayed: Bool
        /// The committed record, when this call changed or read one.
        public var record: TripRecord?
    }

    /// A request's idempotency key with the bytes it was sent with.
    public struct Idempotency: Sendable, Hashable {
        /// Whose key on which route.
        public var scope: IdempotencyScope
        /// What identifies the request body; a reuse with a different body is refused.
        public var fingerprint: Data

        /// Creates the context.
        public init(scope: IdempotencyScope, fingerprint: Data) {
            self.scope = scope
            self.fingerprint = fingerprint
        }
    }

    private let store: any TripStore
    private let bus: any TripBus
    private let time: Timeline
    private let metrics: ServerMetrics
    private var observers: [@Sendable (TripRecord, TripRecord?) async -> Void] = []
    /// Versions whose publish went through, by trip, not yet marked in the store.
    private var delivered: [String: Int] = [:]

    /// Creates the authority over a store and a bus.
    public init(store: any TripStore, bus: any TripBus, time: Timeline, metrics: ServerMetrics) {
        self.store = store
        self.bus = bus
        self.time = time
        self.metrics = metrics
    }

    /// Adds a callback run after every committed change with the record before it (dispatch listens here), and
    /// again, with no record before it, for a change the reconciler redelivers: so an observer must be idempotent.
    public func observe(_ observer: @escaping @Sendable (TripRecord, TripRecord?) async -> Void) {
        observers.append(observer)
    }

    /// The trip with `id`.
    public func record(id: String) async throws(APIError) -> TripRecord? {
        try await storeCall { try await self.store.record(id: id) }
    }

    /// When the trip's newest change was committed: for a searching trip, when its search began.
    public func lastChangeAt(tripID: String) async throws(APIError) -> Date? {
        try await storeCall { try await self.store.events(tripID: tripID).max { $0.version < $1.version }?.at }
    }

    /// The trips searching for a driver now, as the store has them (the dispatchers adopt those no lease covers).
    public func searchingTripIDs() async throws(APIError) -> [String] {
        try await storeCall { try await self.store.searchingTripIDs() }
    }

    /// Decides and commits `intent` on `tripID` (nil for a new trip) for `actor`.
    ///
    /// With an idempotency context, a repeated key replays the first answer (even after a restart) and a
    /// key reused with a different body is 422. A lost race on the trip's version is retried from fresh
    /// state, so two nodes changing one trip can never both win. A change that would give its rider or its
    /// driver a second active trip is refused by the store (a unique index) and answered 409 naming that trip.
    ///
    /// `committed` runs once the change is committed, before its publish and observers: what must be in place before
    /// anyone can learn of the change (a start's first point of the fare's path, which a trip ended at once must find).
    public func apply(
        _ intent: TripIntent,
        tripID: String,
        by actor: TripActor,
        idempotency: Idempotency? = nil,
        check: StartCheck = StartCheck(),
        committed: (@Sendable (TripRecord) async -> Void)? = nil
    ) async throws(APIError) -> Outcome {
        for _ in 0..<5 {
            if let idempotency, let replayed = try await replay(idempotency) { return replayed }
            let current: TripRecord?
            if case .request = intent {
                current = nil
            } else {
                guard let found = try await record(id: tripID) else {
                    throw APIError.notFound("there is no trip \(tripID)")
                }
                current = found
            }
            var next: TripRecord
            switch TripRules.decide(intent, by: actor, on: current) {
            case .success(let record): next = record
            case .failure(let rejection): throw Self.apiError(for: rejection)
            }
            let now = time.now()
            if case .started = intent, let current {
                // Only a start the rules allow is checked: a wrong PIN in the wrong state is not an attempt.
                switch PickupPINGate.judge(check.pin, on: current, now: now) {
                case .pass(let passed): next.pinAttempts = passed.pinAttempts
                case .locked(let until): throw Self.pinLocked(until: until, now: now)
                case .wrong(let counted, let left, let until):
                    if try await commitWrongPIN(counted, expected: current.trip.version, actor: actor, now: now) {
                        throw Self.wrongPIN(attemptsLeft: left, lockedUntil: until, now: now)
                    }
                    continue
                }
            }
            let body = Self.body(for: next, to: actor)
            let status = current == nil ? 201 : 200
            if let current, current.trip.version == next.trip.version {
                return Outcome(status: status, body: body, replayed: false, record: next)
            }
            let commit = TripCommit(
                record: next,
                expectedVersion: current?.trip.version,
                event: TripEventRecord(
                    tripID: next.trip.id, version: next.trip.version,
                    intent: intent.name, actor: "\(actor)", state: next.trip.state, at: now,
                    detail: check.unverified ? "unverified" : intent.detail),
                idempotency: idempotency.map {
                    IdempotencyEntry(
                        scope: $0.scope,
                        response: StoredResponse(
                            status: status, body: body, requestFingerprint: $0.fingerprint, createdAt: now))
                }
            )
            switch try await storeCall({ try await self.store.commit(commit) }) {
            case .committed:
                metrics.tripChanged(to: next.trip.state, from: current?.trip.state)
                // From here the request owes this answer, whatever the after-commit work meets.
                CommittedAnswer.current?.commit(.jsonBody(body, status: status))
                await committed?(next)
                await afterCommit(next, previous: current)
                return Outcome(status: status, body: body, replayed: false, record: next)
            case .conflict:
                continue
            case .activeTripTaken(let conflict):
                // The same key may have won meanwhile with this very trip (a retry racing its first attempt).
                if let idempotency, let replayed = try await replay(idempotency) { return replayed }
                metrics.activeTripRefused(conflict.party.rawValue)
                throw Self.apiError(for: conflict)
            }
        }
        throw APIError(code: .unavailable, message: "the trip is changing too fast; retry with the same key")
    }

    /// Records `alert` on `tripID` as a change of the trip (its log line `tripAlert` with the kind), then sends it to
    /// the trip's stream as an essential `tripAlert` frame; nil when the trip is no longer under way (it ended while
    /// the alert was on its way), which is no alert at all.
    @discardableResult
    public func raise(_ alert: TripAlert, tripID: String) async throws(APIError) -> TripRecord? {
        let outcome: Outcome
        do {
            outcome = try await apply(.tripAlert(alert), tripID: tripID, by: .system)
        } catch  where error.code == .invalidState {
            return nil
        }
        let text = (try? HailJSON.encodeString(RiderServerFrame.tripAlert(alert))) ?? ""
        await bus.publish(BusMessage(kind: .essential, text: text), to: .trip(tripID))
        // Counted once it is out: a count says the rider's stream has been handed the frame.
        metrics.tripAlertRaised(alert.kind)
        return outcome.record
    }

    /// Commits a wrong PIN's count (and lock) as a change of the trip that moves nothing else, so every node sees
    /// it and the event log has it; false when the trip changed meanwhile (the caller decides again).
    private func commitWrongPIN(_ counted: TripRecord, expected: Int, actor: TripActor, now: Date)
        async throws(APIError) -> Bool
    {
        let commit = TripCommit(
            record: counted, expectedVersion: expected,
            event: TripEventRecord(
                tripID: counted.trip.id, version: counted.trip.version, intent: "wrongPickupPIN", actor: "\(actor)",
                state: counted.trip.state, at: now),
            idempotency: nil)
        switch try await storeCall({ try await self.store.commit(commit) }) {
        case .committed:
            await afterCommit(counted, previous: nil)
            return true
        case .conflict, .activeTripTaken:
            return false
        }
    }

    /// The 409 for a missing or wrong PIN.
    static func wrongPIN(attemptsLeft: Int, lockedUntil: Date?, now: Date) -> APIError {
        guard let lockedUntil else {
            return APIError(
                code: .invalidState, message: "the pickup PIN is missing or wrong; \(attemptsLeft) attempts left",
                reason: .wrongPickupPIN, attemptsLeft: attemptsLeft)
        }
        let seconds = Int(lockedUntil.timeIntervalSince(now).rounded(.up))
        return APIError(
            code: .invalidState,
            message: "the pickup PIN is wrong; too many wrong PINs: starting is locked for \(seconds) s",
            reason: .wrongPickupPIN, attemptsLeft: 0, retryAfterSeconds: seconds)
    }

    /// The 409 while starting is locked.
    static func pinLocked(until: Date, now: Date) -> APIError {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        return APIError(
            code: .invalidState, message: "too many wrong pickup PINs: starting is locked for \(seconds) s",
            reason: .pickupPINLocked, retryAfterSeconds: seconds)
    }

    /// The stored answer for a repeated idempotency key, or nil when the key is new; 422 for another body.
    public func replay(_ idempotency: Idempotency) async throws(APIError) -> Outcome? {
        guard let stored = try await storedResponse(idempotency) else { return nil }
        guard stored.requestFingerprint == idempotency.fingerprint else {
            throw APIError(
                code: .idempotencyKeyReused,
                message: "this Idempotency-Key was already used with a different request body")
        }
        metrics.idempotentReplay()
        return Outcome(status: stored.status, body: stored.body, replayed: true, record: nil)
    }

    /// The JSON body for a trip, as every endpoint answers it.
    public static func body(for trip: Trip) -> Data { (try? HailJSON.encode(trip)) ?? Data("{}".utf8) }

    /// The JSON body of `record` for `actor`: its rider's answers carry the pickup PIN, nobody else's do.
    public static func body(for record: TripRecord, to actor: TripActor) -> Data {
        if case .rider(let id) = actor, id == record.riderID { return body(for: record.tripForRider) }
        return body(for: record.trip)
    }

    /// The HTTP error for a rule's refusal.
    public static func apiError(for rejection: TripRejection) -> APIError {
        switch rejection.reason {
        case .forbidden: return APIError(code: .forbidden, message: rejection.message)
        case .invalid: return APIError(code: .invalidField, message: rejection.message)
        default: return APIError.invalidState(rejection.message)
        }
    }

    /// The 409 for a commit the database refused as a second active trip, naming the trip already held. Nothing
    /// was stored under the idempotency key, so the key stays free: sent again once that trip has ended, it
    /// succeeds.
    public static func apiError(for conflict: ActiveTripConflict) -> APIError {
        switch conflict.party {
        case .rider:
            return .activeTrip(
                conflict.tripID, "you already have an active trip \(conflict.tripID); cancel it or wait for it to end")
        case .driver:
            return .activeTrip(
                conflict.tripID, "you already hold an active trip \(conflict.tripID); end it before accepting another")
        }
    }

    private func storedResponse(_ idempotency: Idempotency) async throws(APIError) -> StoredResponse? {
        try await storeCall { try await self.store.storedResponse(for: idempotency.scope) }
    }

    /// Does again what followed a change that is not marked published (the reconciler calls it some seconds after
    /// the commit): the publish to its watchers and its driver, then the observers. Watchers ignore a version they
    /// have; the observers are idempotent. The driver who gave the trip up before this change is not known here:
    /// their own record is the reconciler's driver repair, and their app learns it at its next resync.
    public func redeliver(_ record: TripRecord) async {
        await afterCommit(record, previous: nil)
    }

    /// Marks in the store what was published since the last call; kept for the next call when the store fails.
    public func flushPublished() async throws {
        let marks = delivered
        guard !marks.isEmpty else { return }
        try await store.markPublished(marks)
        for (id, version) in marks where delivered[id] == version { delivered[id] = nil }
    }

    private func afterCommit(_ record: TripRecord, previous: TripRecord?) async {
        let published = await publish(record, previous: previous)
        for observer in observers { await observer(record, previous) }
        if published { delivered[record.trip.id] = max(delivered[record.trip.id] ?? 0, record.trip.version) }
    }

    /// Publishes the change to the trip's watchers and its drivers; false when any publish did not go through.
    private func publish(_ record: TripRecord, previous: TripRecord?) async -> Bool {
        let riderText = (try? HailJSON.encodeString(RiderServerFrame.tripUpdated(record.trip))) ?? ""
        var published = await bus.publishConfirmed(
            BusMessage(kind: .essential, text: riderText, endsStream: !record.trip.state.isActive),
            to: .trip(record.trip.id))
        let driverText = (try? HailJSON.encodeString(DriverServerFrame.tripUpdated(record.trip))) ?? ""
        var drivers = Set<String>()
        if let id = record.driverID { drivers.insert(id) }
        // A driver who gave the trip up still hears that it left them.
        if let id = previous?.driverID { drivers.insert(id) }
        for id in drivers.sorted() {
            published =
                await bus.publishConfirmed(BusMessage(kind: .essential, text: driverText), to: .driver(id)) && published
        }
        return published
    }

    private func storeCall<T: Sendable>(_ call: @Sendable () async throws -> T) async throws(APIError) -> T {
        do {
            return try await call()
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(code: .unavailable, message: "storage is unavailable: \(error)")
        }
    }
}
