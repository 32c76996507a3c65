import Foundation
import HailClient
import HailCore
import HailDriver
import HailProtocol

/// The driver's real transports behind the runtime's seams, through the driver's network conditions;
/// a call with no answer fails as the live transport's would, so the runtime retries it.
struct FaultyDriverLink: DriverAPI, DriverChannel {
    let link: SimDriverLink
    let faults: FaultInjector

    private func call<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await faults.request(work)
        } catch let lost as FaultInjector.NoAnswer {
            throw SimDriverLink.Failure(error: .transport(lost.description))
        }
    }

    func setStatus(_ status: DriverStatusRequest) async throws {
        try await call { try await link.setStatus(status) }
    }

    func sendLocations(_ batch: LocationBatch) async throws -> LocationAck {
        try await call { try await link.sendLocations(batch) }
    }

    func activeTrip() async throws -> Trip? {
        try await call { try await link.activeTrip() }
    }

    func trip(id: String) async throws -> Trip {
        try await call { try await link.trip(id: id) }
    }

    func accept(tripID: String, key: UUID) async throws -> Trip {
        try await call { try await link.accept(tripID: tripID, key: key) }
    }

    func decline(tripID: String) async throws {
        try await call { try await link.decline(tripID: tripID) }
    }

    func report(_ event: TripEventKind, tripID: String, key: UUID) async throws -> Trip {
        try await call { try await link.report(event, tripID: tripID, key: key) }
    }

    func cancel(tripID: String, key: UUID) async throws -> Trip {
        try await call { try await link.cancel(tripID: tripID, key: key) }
    }

    func config() async throws -> ClientConfig? {
        try await call { try await link.config() }
    }

    func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try await call { try await link.sendTelemetry(batch) }
    }

    func connect() async throws -> AsyncStream<DriverServerFrame> {
        let inner: AsyncStream<DriverServerFrame>
        do {
            inner = try await faults.open { try await link.connect() }
        } catch let lost as FaultInjector.NoAnswer {
            throw SimDriverLink.Failure(error: .transport(lost.description))
        }
        guard faults.isActive else { return inner }
        let throwing = AsyncThrowingStream<DriverServerFrame, any Error> { continuation in
            let task = Task {
                for await frame in inner { continuation.yield(frame) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let real = link
        let delivered = faults.stream(throwing, reorderable: { _ in false }, close: { await real.disconnect() })
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
        guard faults.isActive else { return try await link.send(batch) }
        let conditions = faults.conditions
        if await conditions.deadZoneEnd(at: conditions.now) != nil {
            throw SimDriverLink.Failure(error: .transport("no network"))
        }
        let delay = await conditions.frameDelay()
        try await conditions.sleep(until: conditions.now + delay)
        try await link.send(batch)
    }

    func disconnect() async { await link.disconnect() }
}
