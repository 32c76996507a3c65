import Foundation
import HailAppSeams
import HailCore
import HailProtocol

/// The rider's REST calls over `HTTPTransport`: the live `TripAPI`. Every failure is a `CallError`.
public struct RiderHTTPAPI: TripAPI {
    /// The transport, carrying the rider's token.
    public let transport: HTTPTransport

    /// The timing of the latest REST answer that carried the server's clock.
    public func latestClockSample() async -> ServerClock.Sample? {
        guard let sample = await transport.latestServerTime() else { return nil }
        return ServerClock.Sample(sentAt: sample.sentAt, serverTime: sample.serverTime, receivedAt: sample.receivedAt)
    }

    /// Creates the API on a transport.
    public init(transport: HTTPTransport) { self.transport = transport }

    /// `POST /v1/estimates`.
    public func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        try await call("POST", Routes.estimates.template, body: EstimateRequest(pickup: pickup, dropoff: dropoff))
    }

    /// `POST /v1/trips` under `idempotencyKey`.
    public func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        try await call("POST", Routes.requestTrip.template, body: request, key: idempotencyKey)
    }

    /// `GET /v1/trips/active`: the active trip, or nil on 204.
    public func activeTrip() async throws -> Trip? {
        do {
            return try await transport.json("GET", Routes.activeTrip.template, as: Trip.self)
        } catch {
            throw error
        }
    }

    /// `GET /v1/trips/{id}`, with the driver's last published position.
    public func trip(id: String) async throws -> Trip {
        try await call("GET", Routes.trip(id: id), body: Optional<Data>.none)
    }

    /// `POST /v1/trips/{id}/cancel` under `idempotencyKey`.
    public func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        try await call("POST", Routes.cancel(tripID: tripID), body: CancelRequest(), key: idempotencyKey)
    }

    /// `POST /v1/trips/{id}/check-in`.
    public func checkIn(tripID: String, answer: CheckInAnswer, idempotencyKey: UUID) async throws -> Trip {
        try await call(
            "POST", Routes.checkIn(tripID: tripID), body: CheckInRequest(answer: answer), key: idempotencyKey)
    }

    /// `PUT /v1/devices/me`.
    public func register(deviceToken: DeviceRegistration) async throws {
        try await callNoContent("PUT", Routes.registerDevice.template, body: deviceToken)
    }

    /// `PUT /v1/trips/{id}/live-activity`.
    public func register(liveActivityToken: LiveActivityRegistration, for tripID: String) async throws {
        try await callNoContent("PUT", Routes.liveActivity(tripID: tripID), body: liveActivityToken)
    }

    /// `GET /v1/config`: the rider's flags, or nil from a server that does not know the route (404).
    public func config() async throws -> ClientConfig? {
        try await ClientConfig.fetch(over: transport)
    }

    /// `POST /v1/telemetry`.
    public func sendTelemetry(_ batch: TelemetryBatch) async throws {
        try await callNoContent("POST", Routes.telemetry.template, body: batch)
    }

    private func callNoContent(_ method: String, _ path: String, body: some Encodable) async throws {
        do {
            _ = try await transport.json(method, path, body: body, as: EmptyAnswer.self)
        } catch {
            throw error
        }
    }

    /// A 204's (absent) body.
    private struct EmptyAnswer: Decodable {}

    private func call<Response: Decodable>(
        _ method: String, _ path: String, body: (some Encodable)?, key: UUID? = nil
    ) async throws -> Response {
        let answer: Response?
        do {
            answer = try await transport.json(method, path, body: body, idempotencyKey: key, as: Response.self)
        } catch {
            throw error
        }
        guard let answer else {
            throw CallError.unreadable("\(method) \(path): an empty answer where a body was expected")
        }
        return answer
    }
}

/// The rider's live stream over `SocketConnector`: the live `LiveTripChannel`.
public struct RiderLiveChannel: LiveTripChannel {
    /// The server, such as `http://127.0.0.1:8080`; the stream goes to its `ws://` twin.
    public let baseURL: URL
    /// Where the rider's token comes from; sent in `Authorization` on each (re)connect.
    public let tokens: any AccessTokenProvider
    /// What this app says it is.
    public let client: ClientInfo?
    private let connector: SocketConnector

    /// Creates a channel sharing `connector` (one libwebsockets context on Linux) with other sockets.
    public init(baseURL: URL, token: String, connector: SocketConnector, client: ClientInfo? = nil) {
        self.init(baseURL: baseURL, tokens: FixedAccessToken(token), connector: connector, client: client)
    }

    /// Creates a channel whose token comes from `tokens`, asked again on every connect.
    public init(baseURL: URL, tokens: any AccessTokenProvider, connector: SocketConnector, client: ClientInfo? = nil) {
        self.baseURL = baseURL
        self.tokens = tokens
        self.connector = connector
        self.client = client
    }

    /// The `ws://` or `wss://` URL of `path` on the server.
    public func socketURL(_ path: String) -> String {
        var text = baseURL.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("https://") {
            text = "wss://" + text.dropFirst("https://".count)
        } else if text.hasPrefix("http://") {
            text = "ws://" + text.dropFirst("http://".count)
        }
        return text + path
    }

    /// Opens `/v1/trips/{id}/live?after=<seq>` and decodes its frames. The stream finishes normally when
    /// the server closes with 1000 (the trip ended) and throws `CallError.closed` on any other close;
    /// a frame that cannot be decoded is skipped, since a newer server may send types this app predates.
    public func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        try await open(tripID: tripID, after: seq, version: nil)
    }

    /// The same, with `&version=` the trip version the app shows, which the server counts a resync's size by.
    public func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        let socket = try await connector.connect(
            socketURL(Routes.live(tripID: tripID, after: seq, version: seq == nil ? nil : version)), tokens: tokens,
            client: client)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: RiderServerFrame.self)
        let reader = Task {
            for await frame in socket.frames {
                guard case .text(let text) = frame,
                    let decoded = try? HailJSON.decode(RiderServerFrame.self, from: Data(text.utf8))
                else { continue }
                continuation.yield(decoded)
            }
            let close = await socket.closed()
            if close.code == 1000 {
                continuation.finish()
            } else {
                continuation.finish(throwing: CallError.streamClosed(code: close.code, reason: close.reason))
            }
        }
        continuation.onTermination = { _ in
            reader.cancel()
            socket.close(code: 1000, reason: "rider left")
        }
        return stream
    }
}
