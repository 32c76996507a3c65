import Foundation
import HailCore
import HailNet
import HailProtocol

/// The two WebSocket streams of API v1: a trip's live stream for its rider (and share viewers), and a
/// driver's own stream for positions, offers, trip changes and acks.
public struct LiveStreams: Sendable {
    /// What an accepted upgrade will run.
    public enum Plan: Sendable, Hashable {
        /// `/v1/trips/{id}/live`: resume after `resume.after` (the app showing `resume.version`).
        case trip(id: String, principal: Principal, resume: LiveQuery, client: ClientInfo?)
        /// `/v1/drivers/me/live`.
        case driver(id: String, client: ClientInfo?)
        /// `/v1/fleet/live`: the operator's fleet feed.
        case fleet(client: ClientInfo?)
    }

    let services: ServerServices
    let api: HailAPI
    let drivers: DriverConnections
    /// The three above by one reference, which each stream's handler keeps instead of copies of them.
    private let shared: StreamServices

    /// The trips whose positions reached this node's watchers, while a drain watches for them.
    var sightings: PositionSightings { shared.sightings }

    /// Creates the streams over the server's services.
    public init(services: ServerServices) {
        self.services = services
        api = HailAPI(services: services)
        drivers = DriverConnections()
        shared = StreamServices(services: services, api: api, drivers: drivers)
    }

    /// Decides an upgrade before accepting it: the route, the token (header or `access_token`), and
    /// whether this principal may watch this trip. HailNet completes the upgrade before an async answer
    /// can come back, so a refusal is a close frame with the code for the error (4001, 4003, 4004, 4008, 4013).
    public func plan(method: String, target: String, headers: [String: String]) async throws(APIError) -> Plan {
        let request = APIRequest(method: method, target: target, headers: headers)
        let match = try Routes.match(method: HTTPMethod(rawValue: method), target: target).resolve()
        guard match.route.isWebSocket else {
            throw APIError(code: .invalidBody, message: "\(match.route.template) is not a WebSocket route")
        }
        guard let principal = try api.authenticate(request, for: match) else {
            throw APIError(code: .unauthorized, message: "this stream needs a token")
        }
        let client = ClientInfo(headerValue: request.header(HailHeader.client))
        if match.route == Routes.driverLive { return .driver(id: principal.subject, client: client) }
        if match.route == Routes.fleetLive { return .fleet(client: client) }
        let tripID = match.parameters["id"] ?? ""
        _ = try await api.readableTrip(tripID, by: principal)
        let query = try LiveQuery(query: match.query)
        return .trip(id: tripID, principal: principal, resume: query, client: client)
    }

    /// Runs an accepted stream until the client leaves, the trip ends or the task is cancelled.
    public func run(_ plan: Plan, on connection: any LiveConnection) async {
        switch plan {
        case .trip(let id, let principal, let resume, let client):
            services.metrics.connection(role: principal.role, client: client, delta: 1)
            if resume.after != nil { services.metrics.reconnect(role: principal.role) }
            await runTrip(id, resume: resume, role: principal.role, client: client, on: connection)
            services.metrics.connection(role: principal.role, client: client, delta: -1)
        case .driver(let id, let client):
            services.metrics.connection(role: .driver, client: client, delta: 1)
            if await drivers.register(id, connection: connection) { services.metrics.reconnect(role: .driver) }
            await runDriver(id, client: client, on: connection)
            await drivers.unregister(id, connection: connection)
            services.metrics.connection(role: .driver, client: client, delta: -1)
        case .fleet(let client):
            services.metrics.connection(role: .operator, client: client, delta: 1)
            await send(OperatorServerFrame.hello(serverTime: services.time.now()), .essential, on: connection)
            await send(await services.operatorFeed.snapshotNow(), .essential, on: connection)
            for await _ in connection.inbound {}
            services.metrics.connection(role: .operator, client: client, delta: -1)
        }
    }

    private func runTrip(
        _ tripID: String, resume: LiveQuery, role: Role, client: ClientInfo?, on connection: any LiveConnection
    ) async {
        let after = resume.after
        // Subscribe before reading the current state, so no change can fall between the two.
        let subscription = await services.bus.subscribe(to: .trip(tripID))
        await send(RiderServerFrame.hello(serverTime: services.time.now()), .essential, on: connection)
        let found: TripRecord?
        do {
            found = try await services.trips.record(id: tripID)
        } catch {
            // Storage that does not answer is not a missing trip: the client reconnects later (4013).
            await subscription.cancel()
            await connection.close(code: WebSocketCloseCode.reconnectLater.rawValue, reason: "storage is unavailable")
            return
        }
        guard let record = found else {
            await subscription.cancel()
            await connection.close(code: WebSocketCloseCode.tripNotFound.rawValue, reason: "trip not found")
            return
        }
        let trip = await services.withLiveFields(record.trip)
        await send(RiderServerFrame.tripUpdated(trip), .essential, on: connection)
        var replayed = 1
        if let position = trip.driverLocation, position.seq > (after ?? Int64.min) {
            await send(
                RiderServerFrame.driverMoved(
                    DriverMoved(location: position, etaSeconds: trip.etaSeconds, etaTarget: EtaTarget(for: trip.state))),
                .disposable,
                on: connection)
            replayed += 1
        }
        Self.countResync(services, role: role, client: client, resume: resume, trip: trip, frames: replayed)
        guard trip.state.isActive else {
            await subscription.cancel()
            await connection.close(code: WebSocketCloseCode.normal.rawValue, reason: "trip ended")
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in subscription.messages {
                    await connection.send(message)
                    if message.endsStream {
                        await connection.close(code: WebSocketCloseCode.normal.rawValue, reason: "trip ended")
                        return
                    }
                }
            }
            group.addTask {
                // Riders send nothing; draining keeps the socket's inbound side flowing until it closes.
                for await _ in connection.inbound {}
            }
            await group.next()
            group.cancelAll()
            await subscription.cancel()
        }
    }

    private func runDriver(_ driverID: String, client: ClientInfo?, on connection: any LiveConnection) async {
        let subscription = await services.bus.subscribe(to: .driver(driverID))
        await send(DriverServerFrame.hello(serverTime: services.time.now()), .essential, on: connection)
        if let record = try? await services.trips.activeRecord(driverID: driverID) {
            await send(
                DriverServerFrame.tripUpdated(await services.withLiveFields(record.trip)), .essential, on: connection)
        }
        if let offer = await services.dispatcher.currentOffer(for: driverID),
            let record = try? await services.trips.record(id: offer.tripID)
        {
            await send(
                DriverServerFrame.offer(TripOffer(trip: record.trip, expiresAt: offer.expiresAt)), .essential,
                on: connection)
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in subscription.messages { await connection.send(message) }
            }
            group.addTask {
                for await inbound in connection.inbound {
                    do throws(APIError) {
                        let batch = try Self.batch(from: inbound)
                        let result = try await api.call {
                            try await services.fleet.ingest(driverID: driverID, batch: batch, client: client)
                        }
                        await send(DriverServerFrame.ack(LocationAck(seq: result.ackSeq)), .essential, on: connection)
                    } catch {
                        await connection.close(code: error.closeCode.rawValue, reason: Self.reason(error.message))
                        return
                    }
                }
            }
            await group.next()
            group.cancelAll()
            await subscription.cancel()
        }
    }

    /// The driver stream read on its loop (`WebSocketDecision.handle`): every batch ingested in the receive
    /// callback; `bucket` is the socket's message rate (nil: not limited), `refused` counts a refusal, and
    /// `ended` runs once when the stream is over.
    public func driverHandler(
        driverID: String, client: ClientInfo?, on connection: WebSocketConnection, bucket: TokenBucket?,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void, ended: @escaping @Sendable () -> Void
    ) -> any WebSocketInboundHandler {
        DriverStreamHandler(
            driverID: driverID, client: client, shared: shared, bucket: bucket, connection: connection,
            refused: refused, ended: ended)
    }

    /// The trip stream read on its loop: the bus writes each message straight to the socket.
    public func tripHandler(
        tripID: String, principal: Principal, resume: LiveQuery, client: ClientInfo?,
        on connection: WebSocketConnection, bucket: TokenBucket?,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void,
        ended: @escaping @Sendable () -> Void
    ) -> any WebSocketInboundHandler {
        TripStreamHandler(
            tripID: tripID, principal: principal, resume: resume, client: client, shared: shared, bucket: bucket,
            connection: connection, refused: refused, ended: ended)
    }

    /// The operator's stream read on its loop: the shared fleet feed writes to the socket.
    public func fleetHandler(
        client: ClientInfo?, on connection: WebSocketConnection, bucket: TokenBucket?,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void, ended: @escaping @Sendable () -> Void
    ) -> any WebSocketInboundHandler {
        OperatorStreamHandler(
            services: services, client: client, bucket: bucket, connection: connection, refused: refused, ended: ended)
    }

    /// Counts a resumed trip stream's replay: the frames sent before live ones, and the trip versions past the one
    /// its app said it had. A stream opened without a cursor is no resync.
    static func countResync(
        _ services: ServerServices, role: Role, client: ClientInfo?, resume: LiveQuery, trip: Trip, frames: Int
    ) {
        guard resume.after != nil else { return }
        let segment = services.metrics.clientBounds.segment(
            client, region: services.flags.current.region(containing: trip.pickup))
        services.metrics.resync(
            role: role, segment: segment, frames: frames,
            tripVersions: resume.version.map { max(0, trip.version - $0) } ?? 0)
    }

    /// A HailNet message as the streams see it.
    static func inbound(_ message: WebSocketMessage) -> LiveInbound {
        switch message {
        case .text(let text): .text(text)
        case .binary(let bytes): .binary(Data(bytes))
        }
    }

    static func batch(from inbound: LiveInbound) throws(APIError) -> LocationBatch {
        switch inbound {
        case .binary(let data):
            return try WireDecoder.decodeLocationBatch(binary: data)
        case .text(let text):
            switch try WireDecoder.decodeRequest(DriverClientFrame.self, from: Data(text.utf8)) {
            case .location(let batch): return batch
            }
        }
    }

    /// A close reason cut to the 123 bytes a close frame allows, on a character boundary.
    static func reason(_ message: String) -> String {
        var reason = ""
        for character in message {
            if reason.utf8.count + String(character).utf8.count > 123 { break }
            reason.append(character)
        }
        return reason
    }

    private func send<Frame: Encodable>(_ frame: Frame, _ kind: BusMessage.Kind, on connection: any LiveConnection)
        async
    {
        guard let text = try? HailJSON.encodeString(frame) else { return }
        await connection.send(BusMessage(kind: kind, text: text))
    }
}

/// The one live stream each driver may have on this node: a new connection supersedes the old one.
actor DriverConnections {
    private struct Registered {
        let identity: ObjectIdentifier
        let close: @Sendable (UInt16, String) async -> Void
    }

    private var current: [String: Registered] = [:]
    private var seen: Set<String> = []

    /// Registers `connection` for `driverID`, closing any older one; returns true for a reconnect.
    func register(_ driverID: String, connection: any LiveConnection) async -> Bool {
        await register(
            driverID,
            Registered(identity: ObjectIdentifier(connection)) { await connection.close(code: $0, reason: $1) })
    }

    /// Registers a stream read on its loop, closing any older one; returns true for a reconnect.
    func register(_ driverID: String, connection: WebSocketConnection) async -> Bool {
        await register(
            driverID, Registered(identity: ObjectIdentifier(connection)) { connection.close(code: $0, reason: $1) })
    }

    private func register(_ driverID: String, _ registered: Registered) async -> Bool {
        let previous = current.updateValue(registered, forKey: driverID)
        if let previous {
            await previous.close(
                WebSocketCloseCode.superseded.rawValue, "a newer connection replaced this one")
        }
        return !seen.insert(driverID).inserted
    }

    /// The driver of each stream registered here, by the stream's object identity.
    func driverIDs() -> [ObjectIdentifier: String] {
        Dictionary(current.map { ($0.value.identity, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    /// Forgets `connection` if it is still the driver's current one.
    func unregister(_ driverID: String, connection: AnyObject) {
        guard let registered = current[driverID], registered.identity == ObjectIdentifier(connection) else { return }
        current[driverID] = nil
    }
}
