import Foundation
import HailAppSeams
import HailClient
import HailCore
import HailProtocol

/// The driver's live REST API, logging every call's outcome, each location batch it carried and acknowledged,
/// and the fare a trip ended with.
struct LoggingDriverAPI: DriverAPI {
    let inner: DriverHTTPAPI
    let recorder: DriverRecorder
    private var rest: RESTOutcome { RESTOutcome(log: recorder.log, timeline: recorder.timeline) }

    init(inner: DriverHTTPAPI, recorder: DriverRecorder) {
        self.inner = inner
        self.recorder = recorder
    }

    func setStatus(_ status: DriverStatusRequest) async throws {
        try await rest.run("status:\(status.online ? "online" : "offline")", tripID: nil) {
            try await inner.setStatus(status)
        }
    }

    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck {
        recorder.sent(batch, via: "rest")
        let ack = try await rest.run("locations", tripID: nil) { try await inner.sendLocations(batch) }
        recorder.acknowledged(seq: ack.seq, via: "rest")
        return ack
    }

    func activeTrip() async throws -> Trip? {
        try await rest.run("activeTrip", tripID: nil, trip: { $0 }) { try await inner.activeTrip() }
    }

    func trip(id: String) async throws -> Trip {
        try await rest.run("trip", tripID: id, trip: { $0 }) { try await inner.trip(id: id) }
    }

    func accept(tripID: String, key: UUID) async throws -> Trip {
        try await rest.run("accept", tripID: tripID, trip: { $0 }) { try await inner.accept(tripID: tripID, key: key) }
    }

    func decline(tripID: String) async throws {
        try await rest.run("decline", tripID: tripID) { try await inner.decline(tripID: tripID) }
    }

    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) async throws -> Trip {
        let trip = try await rest.run("event:\(event.rawValue)", tripID: tripID, trip: { $0 }) {
            try await inner.report(event, tripID: tripID, key: key, path: path)
        }
        if event == .ended {
            recorder.acknowledgedWithEnd(path ?? [])
            ended(trip)
        }
        return trip
    }

    func start(tripID: String, key: UUID, pin: String?) async throws -> Trip {
        try await rest.run("event:started", tripID: tripID, trip: { $0 }) {
            try await inner.start(tripID: tripID, key: key, pin: pin)
        }
    }

    func cancel(tripID: String, key: UUID) async throws -> Trip {
        try await rest.run("cancel", tripID: tripID, trip: { $0 }) { try await inner.cancel(tripID: tripID, key: key) }
    }

    func config() async throws -> ClientConfig? {
        try await rest.run("config", tripID: nil) { try await inner.config() }
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try await inner.sendTelemetry(batch)
    }

    /// The fare and charged distance of a trip the server ended (each retry of the same end answers the same).
    private func ended(_ trip: Trip) {
        var line = recorder.event("tripEnd")
        line.trip = trip.id
        line.version = trip.version
        line.state = trip.state.rawValue
        line.fare = trip.fare?.amountMinor
        line.currency = trip.fare?.currency
        line.distance = trip.receipt?.distanceMeters
        line.duration = trip.receipt?.durationSeconds
        line.driven = recorder.driven(tripID: trip.id)
        recorder.log.write(line)
    }
}
