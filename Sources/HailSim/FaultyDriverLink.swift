import Foundation
import HailClient
import HailCore
import HailDriver
import HailProtocol

/// The driver's real transports behind the runtime's seams, through the driver's network conditions;
/// a call with no answer fails as the live transport's would, so the runtime retries it. Every batch the app
/// sends is noted in the car's truth, so a rider's pin can be traced to the fix it shows.
struct FaultyDriverLink: DriverAPI, DriverChannel {
    let api: DriverHTTPAPI
    let channel: DriverLiveChannel
    let faults: FaultInjector
    let truth: TruthTrace

    private func call<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await faults.request(work)
        } catch let lost as FaultInjector.NoAnswer {
            throw CallError.noAnswer(lost.description)
        }
    }

    func setStatus(_ status: DriverStatusRequest) async throws {
        try await call { try await api.setStatus(status) }
    }

    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck {
        truth.sent(batch)
        return try await call { try await api.sendLocations(batch) }
    }

    func activeTrip() async throws -> Trip? {
        try await call { try await api.activeTrip() }
    }

    func trip(id: String) async throws -> Trip {
        try await call { try await api.trip(id: id) }
    }

    func accept(tripID: String, key: UUID) async throws -> Trip {
        try await call { try await api.accept(tripID: tripID, key: key) }
    }

    func decline(tripID: String) async throws {
        try await call { try await api.decline(tripID: tripID) }
    }

    func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) async throws -> Trip {
        try await call { try await api.report(event, tripID: tripID, key: key, path: path) }
    }

    func start(tripID: String, key: UUID, pin: String?) async throws -> Trip {
        try await call { try await api.start(tripID: tripID, key: key, pin: pin) }
    }

    func reportRoute(tripID: String, _ report: TripRouteReport) async throws {
        try await call { try await api.reportRoute(tripID: tripID, report) }
    }

    func cancel(tripID: String, key: UUID) async throws -> Trip {
        try await call { try await api.cancel(tripID: tripID, key: key) }
    }

    func config() async throws -> ClientConfig? {
        try await call { try await api.config() }
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try await call { try await api.sendTelemetry(batch) }
    }

    func connect() async throws -> AsyncStream<DriverServerFrame> {
        let inner: AsyncStream<DriverServerFrame>
        do {
            inner = try await faults.open { try await channel.connect() }
        } catch let lost as FaultInjector.NoAnswer {
            throw CallError.noAnswer(lost.description)
        }
        guard faults.isActive else { return inner }
        let throwing = AsyncThrowingStream<DriverServerFrame, any Error> { continuation in
            let task = Task {
                for await frame in inner { continuation.yield(frame) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let real = channel
        let conditions = faults.conditions
        let delivered = faults.stream(
            throwing, reorderable: { _ in false },
            close: {
                await conditions.connectionClosed()
                await real.disconnect()
            })
        return AsyncStream { continuation in
            let task = Task {
                do {
                    for try await frame in delivered { continuation.yield(frame) }
                } catch {
                    // A broken connection ends the frames, as a closed socket does.
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func send(_ batch: LocationBatch) async throws {
        truth.sent(batch)
        guard faults.isActive else { return try await channel.send(batch) }
        let conditions = faults.conditions
        if await conditions.deadZoneEnd(at: conditions.now) != nil {
            throw CallError.noAnswer("no network")
        }
        if conditions.profile.tcp != nil {
            // A write on a TCP socket returns at once; the frame arrives in order behind any retransmission, and
            // one the connection closed on is gone, as on a phone: the app hears of it by the missing ack.
            let real = channel
            await conditions.write { try? await real.send(batch) }
            return
        }
        let delay = await conditions.frameDelay()
        try await conditions.sleep(until: conditions.now + delay)
        try await channel.send(batch)
    }

    func disconnect() async {
        if faults.isActive { await faults.conditions.connectionClosed() }
        await channel.disconnect()
    }
}
