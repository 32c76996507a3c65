import Foundation
import HailCore
import HailNet
import HailProtocol

/// A trip's live stream (`/v1/trips/{id}/live`) for its rider or a share viewer, read on its loop.
///
/// No task lives with it: the bus hands each of the trip's messages to the socket on the publisher's
/// thread (`BusGate`), a driver's position published on the same loop is queued in the same turn, and one
/// on another loop costs one post. Only the setup (subscribe, hello, the trip's state, the last position)
/// runs in a task, once. Riders send nothing; what they send anyway is read, counted against the
/// socket's message rate and dropped.
final class TripStreamHandler: WebSocketInboundHandler {

    private let role: Role
    private let client: ClientInfo?
    /// The server's services, by the reference every stream shares (`StreamServices`).
    private let shared: StreamServices
    private var services: ServerServices { shared.services }
    private var bucket: TokenBucket?
    private let refused: @Sendable (RateLimitRefusal) -> Void
    private let ended: @Sendable () -> Void
    /// The setup's subscription, cancelled when the stream closes, however early.
    private let handoff = SubscriptionHandoff()
    private var refusedOnce = false

    /// Starts the setup in a task.
    init(
        tripID: String, principal: Principal, resume: LiveQuery, client: ClientInfo?, shared: StreamServices,
        bucket: TokenBucket?, connection: WebSocketConnection,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        role = principal.role
        self.client = client
        self.shared = shared
        let services = shared.services
        self.bucket = bucket
        self.refused = refused
        self.ended = ended
        services.metrics.connection(role: principal.role, client: client, delta: 1)
        if resume.after != nil { services.metrics.reconnect(role: principal.role) }
        Self.beginSetUp(
            tripID: tripID, resume: resume, role: principal.role, client: client, services: services,
            sightings: shared.sightings, on: connection, handoff: handoff)
    }

    private static func beginSetUp(
        tripID: String, resume: LiveQuery, role: Role, client: ClientInfo?, services: ServerServices,
        sightings: PositionSightings, on connection: WebSocketConnection, handoff: SubscriptionHandoff
    ) {
        Task {
            let subscription = await setUp(
                tripID: tripID, resume: resume, role: role, client: client, services: services, sightings: sightings,
                on: connection)
            if let subscription { await handoff.handOver(subscription) }
        }
    }

    /// Subscribes before reading the trip, so no change can fall between the two, then sends hello, the
    /// trip and its last position; a trip that is over is closed with 1000 "trip ended", one that does not exist
    /// with 4004, and a trip store that does not answer with 4013 (reconnect later), as a lost bus is.
    private static func setUp(
        tripID: String, resume: LiveQuery, role: Role, client: ClientInfo?, services: ServerServices,
        sightings: PositionSightings, on connection: WebSocketConnection
    ) async -> BusSubscription? {
        let after = resume.after
        let time = services.time
        let gate = BusGate(
            connection: connection, metrics: services.metrics, time: time, closesOnEnd: true,
            sawPosition: { sightings.saw(tripID, at: time.now()) })
        let subscription = await services.bus.subscribe(
            to: .trip(tripID), sink: { gate.deliver($0) },
            // The bus lost its link (Redis): the client reconnects and resyncs rather than wait in silence.
            onEnd: {
                connection.close(code: WebSocketCloseCode.reconnectLater.rawValue, reason: "the trip bus went away")
            })
        func send<Frame: Encodable>(_ frame: Frame, _ priority: MessagePriority) {
            guard let text = try? HailJSON.encodeString(frame) else { return }
            connection.send(text: text, priority: priority)
        }
        send(RiderServerFrame.hello(serverTime: services.time.now()), .essential)
        let found: TripRecord?
        do {
            found = try await services.trips.record(id: tripID)
        } catch {
            await subscription.cancel()
            connection.close(code: WebSocketCloseCode.reconnectLater.rawValue, reason: "storage is unavailable")
            return nil
        }
        guard let record = found else {
            await subscription.cancel()
            connection.close(code: WebSocketCloseCode.tripNotFound.rawValue, reason: "trip not found")
            return nil
        }
        let trip = await services.withLiveFields(record.trip)
        send(RiderServerFrame.tripUpdated(trip), .essential)
        var replayed = 1
        if let position = trip.driverLocation, position.seq > (after ?? Int64.min) {
            send(
                RiderServerFrame.driverMoved(
                    DriverMoved(location: position, etaSeconds: trip.etaSeconds, etaTarget: EtaTarget(for: trip.state))),
                .disposable)
            replayed += 1
        }
        LiveStreams.countResync(services, role: role, client: client, resume: resume, trip: trip, frames: replayed)
        guard trip.state.isActive else {
            await subscription.cancel()
            connection.close(code: WebSocketCloseCode.normal.rawValue, reason: "trip ended")
            return nil
        }
        gate.open()
        return subscription
    }

    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction {
        guard !refusedOnce, let over = bucket?.takeMessage(now: services.time.now()) else { return .proceed }
        refusedOnce = true
        refused(over)
        return .close(code: WebSocketCloseCode.rateLimited.rawValue, reason: over.message)
    }

    func event(_ event: any Sendable, on connection: WebSocketConnection) {}

    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection) {
        services.metrics.connection(role: role, client: client, delta: -1)
        let handoff = handoff
        Task { await handoff.close() }
        ended()
    }
}
