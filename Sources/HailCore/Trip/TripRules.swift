import Foundation

/// The rules the server applies to every trip change: given the trip, an intent and who asks, the next
/// trip (its version one higher) or a rejection that changes nothing.
///
/// The checks run in a fixed order so that answers do not leak: first whether the asker's role may ever
/// send this intent, then whether this trip is theirs (403 for both), then whether the state allows it
/// (409). A stranger therefore learns nothing about another trip's state.
public enum TripRules {
    /// Decides `intent` from `actor` against `record` (nil when no trip exists yet, for `.request`).
    ///
    /// An ETA refresh that does not change the ETA returns the record unchanged with the same version;
    /// the caller commits only when the version moved.
    public static func decide(
        _ intent: TripIntent,
        by actor: TripActor,
        on record: TripRecord?
    ) -> Result<TripRecord, TripRejection> {
        if case .request(let request, let tripID, let pickupPIN) = intent {
            return create(request, tripID: tripID, pickupPIN: pickupPIN, by: actor, existing: record)
        }
        guard let record else { return .failure(TripRejection(.conflict, "there is no trip to change")) }
        if let refusal = authorize(intent, by: actor, on: record) { return .failure(refusal) }
        return transition(record, intent)
    }

    private static func create(
        _ request: TripRequest,
        tripID: String,
        pickupPIN: String?,
        by actor: TripActor,
        existing: TripRecord?
    ) -> Result<TripRecord, TripRejection> {
        guard case .rider(let riderID) = actor else {
            return .failure(TripRejection(.forbidden, "only a rider can request a trip"))
        }
        guard existing == nil else { return .failure(TripRejection(.conflict, "trip \(tripID) already exists")) }
        if let problem = request.pickup.validationProblem {
            return .failure(TripRejection(.invalid, "pickup: \(problem.message)"))
        }
        if let problem = request.dropoff.validationProblem {
            return .failure(TripRejection(.invalid, "dropoff: \(problem.message)"))
        }
        if let pickupPIN, !PickupPIN.isWellFormed(pickupPIN) {
            return .failure(TripRejection(.invalid, "a pickup PIN is 4 digits"))
        }
        let trip = Trip(
            id: tripID,
            state: .searching,
            pickup: request.pickup,
            dropoff: request.dropoff,
            productID: request.productID,
            version: 1,
            requiresPickupPIN: pickupPIN == nil ? nil : true
        )
        return .success(TripRecord(trip: trip, riderID: riderID, pickupPIN: pickupPIN))
    }

    /// The role and ownership checks; nil when `actor` may send `intent` for this trip.
    private static func authorize(_ intent: TripIntent, by actor: TripActor, on record: TripRecord) -> TripRejection? {
        switch intent {
        case .request:
            return nil
        case .riderCancels:
            guard case .rider(let id) = actor else {
                return TripRejection(.forbidden, "only the trip's rider can cancel as the rider")
            }
            return id == record.riderID ? nil : TripRejection(.forbidden, "this trip belongs to another rider")
        case .offerAccepted(let driver, _):
            guard case .driver(let id) = actor else {
                return TripRejection(.forbidden, "only a driver can accept a trip")
            }
            return id == driver.id ? nil : TripRejection(.forbidden, "a driver can only accept as themselves")
        case .driverCancels, .arrived, .started, .ended, .noShow, .routeReported:
            guard case .driver(let id) = actor else {
                return TripRejection(.forbidden, "only the assigned driver can report \(intent.name)")
            }
            return id == record.driverID ? nil : TripRejection(.forbidden, "this trip is not assigned to you")
        case .searchTimedOut, .etaUpdated, .tripAlert:
            return actor == .system ? nil : TripRejection(.forbidden, "only the server can report \(intent.name)")
        case .checkIn:
            guard case .rider(let id) = actor else {
                return TripRejection(.forbidden, "only the trip's rider can answer its check-in")
            }
            return id == record.riderID ? nil : TripRejection(.forbidden, "this trip belongs to another rider")
        }
    }

    private static func transition(_ record: TripRecord, _ intent: TripIntent) -> Result<TripRecord, TripRejection> {
        switch intent {
        case .tripAlert(let alert): return raise(alert, on: record)
        case .checkIn(let answer, let at): return checkIn(answer, at: at, on: record)
        case .routeReported(let route): return reroute(route, on: record)
        default: break
        }
        let state = record.trip.state
        var next = record.trip
        switch (state, intent) {
        case (.searching, .offerAccepted(let driver, let eta)):
            next.state = .driverAssigned
            next.driver = driver
            next.etaSeconds = eta
        case (.searching, .searchTimedOut):
            next.state = .noDriversFound
        case (.searching, .riderCancels), (.driverAssigned, .riderCancels), (.driverArrived, .riderCancels):
            next.state = .cancelled
            next.etaSeconds = nil
        case (.driverAssigned, .driverCancels):
            // The rider still wants the ride: search again instead of ending it.
            next.state = .searching
            next.driver = nil
            next.etaSeconds = nil
            next.driverLocation = nil
        case (.driverArrived, .driverCancels), (.driverArrived, .noShow):
            next.state = .cancelled
            next.etaSeconds = nil
        case (.driverAssigned, .arrived):
            next.state = .driverArrived
            next.etaSeconds = 0
        case (.driverArrived, .started):
            next.state = .onTrip
            next.etaSeconds = nil
        case (.onTrip, .ended(let fare, let receipt)):
            if let problem = fare.validationProblem { return .failure(TripRejection(.invalid, "fare: \(problem)")) }
            guard fare.amountMinor >= 0 else { return .failure(TripRejection(.invalid, "fare must not be negative")) }
            if let receipt, receipt.distanceMeters < 0 || receipt.durationSeconds < 0 {
                return .failure(TripRejection(.invalid, "a receipt's distance and time must not be negative"))
            }
            next.state = .completed
            next.fare = fare
            next.receipt = receipt
            next.etaSeconds = nil
        case (.driverAssigned, .etaUpdated(let seconds)), (.onTrip, .etaUpdated(let seconds)):
            guard seconds >= 0 else { return .failure(TripRejection(.invalid, "etaSeconds must not be negative")) }
            guard next.etaSeconds != seconds else { return .success(record) }
            next.etaSeconds = seconds
        case (.onTrip, .riderCancels):
            return .failure(TripRejection(.notAllowedInState, "a rider cannot cancel once the trip has started"))
        default:
            return .failure(
                TripRejection(.notAllowedInState, "\(intent.name) is not allowed when the trip is \(state)"))
        }
        // Every state change must be one the shared table allows; a mismatch is a bug in this file.
        assert(next.state == state || TripTransitions.isAllowed(from: state, to: next.state))
        next.version = record.trip.version + 1
        var changed = record
        changed.trip = next
        return .success(changed)
    }

    /// An alert on a trip under way replaces the one before (answered or not): the state stays, the version moves.
    private static func raise(_ alert: TripAlert, on record: TripRecord) -> Result<TripRecord, TripRejection> {
        guard record.trip.state == .onTrip else {
            return .failure(
                TripRejection(.notAllowedInState, "tripAlert is not allowed when the trip is \(record.trip.state)"))
        }
        var changed = record
        changed.alert = TripAlert(kind: alert.kind, since: alert.since, raisedAt: alert.raisedAt)
        changed.trip.version += 1
        return .success(changed)
    }

    /// The rider answers the trip's alert while the trip is under way; a later answer replaces an earlier one (an
    /// "I'm OK" the rider takes back with "get help"), the same answer again changes nothing.
    private static func checkIn(_ answer: CheckInAnswer, at: Date, on record: TripRecord)
        -> Result<TripRecord, TripRejection>
    {
        guard record.trip.state == .onTrip else {
            return .failure(
                TripRejection(.notAllowedInState, "checkIn is not allowed when the trip is \(record.trip.state)"))
        }
        guard var alert = record.alert else {
            return .failure(TripRejection(.notAllowedInState, "there is no trip alert to answer"))
        }
        guard alert.answer != answer else { return .success(record) }
        alert.answer = answer
        alert.answeredAt = at
        var changed = record
        changed.alert = alert
        changed.trip.version += 1
        return .success(changed)
    }

    /// The driver's navigation follows `route` on the trip under way: it replaces the route reported before, unless
    /// that one is as new or newer (a report delivered late or twice changes nothing). The state stays, the version
    /// moves.
    private static func reroute(_ route: ReportedRoute, on record: TripRecord) -> Result<TripRecord, TripRejection> {
        guard record.trip.state == .onTrip else {
            return .failure(
                TripRejection(
                    .notAllowedInState, "routeReported is not allowed when the trip is \(record.trip.state)"))
        }
        guard route.path.count >= 2 else {
            return .failure(TripRejection(.invalid, "a route has at least 2 points"))
        }
        if let reported = record.route, reported.revision >= route.revision { return .success(record) }
        var changed = record
        changed.route = route
        changed.trip.version += 1
        return .success(changed)
    }
}
