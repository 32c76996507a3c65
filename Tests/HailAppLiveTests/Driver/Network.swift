import Foundation
import HailCore
import HailDriver
import HailProtocol
import Synchronization

extension CallError {
    /// No answer at all: what a tunnel does to every call.
    static let noNetwork = CallError.noAnswer("the network is unreachable")
}

/// A switch between the driver and the real transports: off is a tunnel for the stream and HTTP alike.
final class Network: Sendable {
    private let state = Mutex<(up: Bool, loseNextAnswer: Bool)>((true, false))

    var isUp: Bool { state.withLock { $0.up } }
    func set(up: Bool) { state.withLock { $0.up = up } }
    /// The next trip action reaches the server but its answer is lost on the way back.
    func loseNextAnswer() { state.withLock { $0.loseNextAnswer = true } }

    func check() throws(CallError) {
        guard isUp else { throw CallError.noNetwork }
    }

    func answerLost() -> Bool {
        state.withLock { state in
            defer { state.loseNextAnswer = false }
            return state.loseNextAnswer
        }
    }
}

/// `DriverAPI` through the network switch.
struct SwitchedAPI: DriverAPI {
    let inner: any DriverAPI
    let network: Network

    func setStatus(_ status: DriverStatusRequest) async throws {
        try network.check()
        try await inner.setStatus(status)
    }

    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck {
        try network.check()
        return try await inner.sendLocations(batch)
    }

    func activeTrip() async throws -> Trip? {
        try network.check()
        return try await inner.activeTrip()
    }

    func trip(id: String) async throws -> Trip {
        try network.check()
        return try await inner.trip(id: id)
    }

    func accept(tripID: String, key: UUID) async throws -> Trip {
        try await action { try await inner.accept(tripID: tripID, key: key) }
    }

    func decline(tripID: String) async throws {
        try network.check()
        try await inner.decline(tripID: tripID)
    }

    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) async throws -> Trip {
        try await action { try await inner.report(event, tripID: tripID, key: key, path: path) }
    }

    func start(tripID: String, key: UUID, pin: String?) async throws -> Trip {
        try await action { try await inner.start(tripID: tripID, key: key, pin: pin) }
    }

    func cancel(tripID: String, key: UUID) async throws -> Trip {
        try await action { try await inner.cancel(tripID: tripID, key: key) }
    }

    func config() async throws -> ClientConfig? {
        try network.check()
        return try await inner.config()
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try network.check()
        try await inner.sendTelemetry(batch)
    }

    private func action(_ call: () async throws -> Trip) async throws -> Trip {
        try network.check()
        let trip = try await call()
        if network.answerLost() { throw CallError.noNetwork }
        return trip
    }
}

/// `DriverChannel` through the network switch; `cut` drops the open socket as a tunnel would.
struct SwitchedChannel: DriverChannel {
    let inner: any DriverChannel
    let network: Network

    func connect() async throws -> AsyncStream<DriverServerFrame> {
        try network.check()
        return try await inner.connect()
    }

    func send(_ batch: LocationBatch) async throws {
        try network.check()
        try await inner.send(batch)
    }

    func disconnect() async { await inner.disconnect() }

    func cut() async {
        network.set(up: false)
        await inner.disconnect()
    }
}
