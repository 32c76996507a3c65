import Foundation
import HailAppSeams
import HailCore
import HailProtocol

/// The driver's REST calls over `HTTPTransport`; its methods match HailDriver's `DriverAPI`.
public struct DriverHTTPAPI: DriverAPI {
    /// The transport, carrying the driver's token.
    public let transport: HTTPTransport

    /// Creates the API on a transport.
    public init(transport: HTTPTransport) { self.transport = transport }

    /// `POST /v1/drivers/me/status`.
    public func setStatus(_ status: DriverStatusRequest) async throws(CallError) {
        _ = try await transport.send("POST", Routes.driverStatus.template, body: encode(status))
    }

    /// `POST /v1/drivers/me/locations` in the compact binary format.
    public func sendLocations(_ batch: LocationBatch) async throws(CallError) -> LocationAck {
        let body: Data
        do { body = try LocationBatchCodec.encode(batch) } catch {
            throw .unreadable("cannot encode batch \(batch.seq): \(error)")
        }
        let (_, data) = try await transport.send(
            "POST", Routes.driverLocations.template, body: body, contentType: HailMediaType.locationBatch)
        return try decode(LocationAck.self, data, "locations")
    }

    /// `GET /v1/drivers/me/trip`: the active trip, or nil on 204.
    public func activeTrip() async throws(CallError) -> Trip? {
        try await transport.json("GET", Routes.driverTrip.template, as: Trip.self)
    }

    /// `GET /v1/trips/{id}`: a trip assigned to this driver, in any state (403 once it is someone else's).
    public func trip(id: String) async throws(CallError) -> Trip {
        let (_, data) = try await transport.send("GET", Routes.trip(id: id))
        return try decode(Trip.self, data, "trip")
    }

    /// `POST /v1/trips/{id}/accept` under `key`.
    public func accept(tripID: String, key: UUID) async throws(CallError) -> Trip {
        let (_, data) = try await transport.send("POST", Routes.accept(tripID: tripID), idempotencyKey: key)
        return try decode(Trip.self, data, "accept")
    }

    /// `POST /v1/trips/{id}/decline`.
    public func decline(tripID: String) async throws(CallError) {
        _ = try await transport.send("POST", Routes.decline(tripID: tripID))
    }

    /// `POST /v1/trips/{id}/events` with `event`, its idempotency key in the body and the header, and with `ended`
    /// the fixes of the trip the server has not acknowledged.
    public func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]? = nil)
        async throws(CallError) -> Trip
    {
        let body = TripEventRequest(event: event, idempotencyKey: key.uuidString.lowercased(), path: path)
        let (_, data) = try await transport.send(
            "POST", Routes.events(tripID: tripID), body: encode(body), idempotencyKey: key)
        return try decode(Trip.self, data, "events")
    }

    /// `POST /v1/trips/{id}/events` with `started` and the pickup PIN the driver entered, under `key`.
    public func start(tripID: String, key: UUID, pin: String?) async throws(CallError) -> Trip {
        let body = TripEventRequest(event: .started, idempotencyKey: key.uuidString.lowercased(), pin: pin)
        let (_, data) = try await transport.send(
            "POST", Routes.events(tripID: tripID), body: encode(body), idempotencyKey: key)
        return try decode(Trip.self, data, "events")
    }

    /// `PUT /v1/trips/{id}/route`: the route the driver's navigation follows (204).
    public func reportRoute(tripID: String, _ report: TripRouteReport) async throws(CallError) {
        _ = try await transport.send("PUT", Routes.route(tripID: tripID), body: encode(report))
    }

    /// `POST /v1/trips/{id}/cancel` under `key`.
    public func cancel(tripID: String, key: UUID) async throws(CallError) -> Trip {
        let (_, data) = try await transport.send(
            "POST", Routes.cancel(tripID: tripID), body: encode(CancelRequest()), idempotencyKey: key)
        return try decode(Trip.self, data, "cancel")
    }

    /// `GET /v1/config`: the driver's flags, or nil from a server that does not know the route (404).
    public func config() async throws(CallError) -> ClientConfig? {
        try await ClientConfig.fetch(over: transport)
    }

    /// `POST /v1/telemetry`.
    public func sendTelemetry(_ batch: TelemetryBatch) async throws(CallError) {
        _ = try await transport.send("POST", Routes.telemetry.template, body: encode(batch))
    }

    private func encode(_ value: some Encodable) throws(CallError) -> Data {
        do { return try HailJSON.encode(value) } catch { throw .unreadable("cannot encode the request: \(error)") }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data, _ what: String) throws(CallError) -> T {
        do { return try HailJSON.decode(type, from: data) } catch { throw .unreadable("\(what): \(error)") }
    }
}

/// The driver stream over `SocketConnector`: one socket at a time, binary batches up, JSON frames down.
/// Its methods match HailDriver's `DriverChannel`.
public actor DriverLiveChannel: DriverChannel {
    private let connector: SocketConnector
    private let url: String
    private let tokens: any AccessTokenProvider
    private let client: ClientInfo?
    private var socket: LiveSocket?
    /// The socket `disconnect()` closed last: the server may have closed it first (a send that failed because its
    /// close frame had arrived makes the app disconnect), and then its code is still the server's word.
    private var disconnected: LiveSocket?
    private var serverClose: UInt16?

    /// A channel to `server` (`http://host:port`) with the driver's `token`.
    public init(connector: SocketConnector, server: URL, token: String, client: ClientInfo? = nil) {
        self.init(connector: connector, server: server, tokens: FixedAccessToken(token), client: client)
    }

    /// A channel to `server` whose token comes from `tokens`, asked again on every connect.
    public init(connector: SocketConnector, server: URL, tokens: any AccessTokenProvider, client: ClientInfo? = nil) {
        self.connector = connector
        var text = server.absoluteString
        if text.hasPrefix("https://") {
            text = "wss://" + text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            text = "ws://" + text.dropFirst(7)
        }
        while text.hasSuffix("/") { text.removeLast() }
        self.url = text + Routes.driverLive.template
        self.tokens = tokens
        self.client = client
    }

    /// Opens the stream, closing any older socket; frames that cannot be read are skipped.
    public func connect() async throws(CallError) -> AsyncStream<DriverServerFrame> {
        socket?.close()
        serverClose = nil
        disconnected = nil
        let socket = try await connector.connect(url, tokens: tokens, client: client)
        self.socket = socket
        let raw = socket.frames
        return AsyncStream { continuation in
            let task = Task {
                for await frame in raw {
                    guard case .text(let text) = frame,
                        let decoded = try? HailJSON.decode(DriverServerFrame.self, from: Data(text.utf8))
                    else { continue }
                    continuation.yield(decoded)
                }
                // Known before the frames finish, so whoever reads them can ask how the server closed.
                let close = await socket.closed()
                self.closed(socket, code: close.code)
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// How the server closed the last connection (nil for a drop, or one the app closed itself). Async as the
    /// protocol's requirement is: a synchronous one lost to `DriverChannel`'s default (nil) wherever a caller
    /// awaited it, so the driver's app never saw a close code (4001, 4010, 4012) and reconnected after every one.
    public func lastServerClose() async -> UInt16? { serverClose }

    private func closed(_ closed: LiveSocket, code: UInt16) {
        // A socket the app replaced says nothing about the server, nor one it closed itself unless the server's
        // close came first (then the code is not the 1000 the app sent).
        let closedByApp = disconnected === closed
        guard socket === closed || (closedByApp && code != WebSocketCloseCode.normal.rawValue), code != 1006,
            code != 1005
        else { return }
        serverClose = code
    }

    /// Sends `batch` as a binary frame on the open socket.
    public func send(_ batch: LocationBatch) throws(CallError) {
        guard let socket else { throw .noAnswer("the driver stream is not open") }
        let data: Data
        do { data = try LocationBatchCodec.encode(batch) } catch {
            throw .unreadable("cannot encode batch \(batch.seq): \(error)")
        }
        guard socket.send(binary: data) else { throw .noAnswer("the driver stream is closing") }
    }

    /// Closes the open socket.
    public func disconnect() {
        socket?.close()
        disconnected = socket
        socket = nil
    }
}
