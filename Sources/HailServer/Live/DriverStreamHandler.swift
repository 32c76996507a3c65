import Foundation
import HailCore
import HailNet
import HailProtocol

/// A driver's own stream (`/v1/drivers/me/live`), read on the loop thread that owns its socket.
///
/// Each location batch is decoded, rate-checked and ingested in the receive callback (`Fleet.ingestNow`:
/// seq, filter, geo index, the rider's position, history handed to the group commit), and its ack is
/// queued in the same turn, or when its history points are committed. Acks leave in seq order. Work that
/// really is async (the stream's setup, a scaled node's first batch of a driver) runs in a task whose result
/// comes back as an event; meanwhile the socket is not read, so a fast client waits in its own socket
/// buffer rather than in the server's memory. In the scaled mode a batch is planned here too and written
/// to Redis in one pipelined round trip; the next batch is taken once it is written (`Written`, or its
/// `Committed` when no history follows), so each driver has one batch in the shared store's hands at a time
/// and their batches apply in seq order. Batches read meanwhile wait here, up to `heldLimit`, before the
/// socket stops being read: a driver that waits for its acks never makes the loop switch reading off and on.
final class DriverStreamHandler: WebSocketInboundHandler {
    /// The stream's setup is done (its subscription went to `handoff`): batches may be taken.
    struct SetUp: Sendable {}
    /// A batch's history points were committed (or not: the batch was taken back).
    struct Committed: Sendable {
        let seq: Int64
        let failure: APIError?
    }
    /// A batch taken through the async stores finished.
    struct Ingested: Sendable { let result: Result<Fleet.IngestResult, APIError> }
    /// A batch written through the scaled pipeline is in the shared store: the next one may be taken.
    struct Written: Sendable {}

    /// Acks waiting for their commits before the socket stops being read.
    static let pendingAckLimit = 64
    /// Messages read while a batch is in the works before the socket stops being read.
    static let heldLimit = 4

    private let driverID: String
    private let client: ClientInfo?
    /// The services, the API and the node's driver streams, by one shared reference (`StreamServices`).
    private let shared: StreamServices
    private var services: ServerServices { shared.services }
    private var api: HailAPI { shared.api }
    private var drivers: DriverConnections { shared.drivers }
    private var bucket: TokenBucket?
    private let refused: @Sendable (RateLimitRefusal) -> Void
    private let ended: @Sendable () -> Void

    private var ready = false
    private var ingesting = false
    /// The batch being written through the scaled pipeline, whose `Committed` also says it was written.
    private var writingSeq: Int64?
    private var paused = false
    private var held: [WebSocketMessage] = []
    /// Batches read and not yet acknowledged, in seq order; `true` once its ack may go.
    private var acks: [(seq: Int64, done: Bool)] = []
    private var closeWhenDrained: (code: UInt16, reason: String)?
    /// The setup's subscription, cancelled when the stream closes, however early.
    private let handoff = SubscriptionHandoff()

    /// Starts the stream's setup (registration, subscription, hello, trip and offer) in a task.
    init(
        driverID: String, client: ClientInfo?, shared: StreamServices, bucket: TokenBucket?,
        connection: WebSocketConnection,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void, ended: @escaping @Sendable () -> Void
    ) {
        self.shared = shared
        self.driverID = driverID
        self.client = client
        self.bucket = bucket
        self.refused = refused
        self.ended = ended
        shared.services.metrics.connection(role: .driver, client: client, delta: 1)
        Self.beginSetUp(driverID: driverID, shared: shared, on: connection, handoff: handoff)
    }

    private static func beginSetUp(
        driverID: String, shared: StreamServices, on connection: WebSocketConnection, handoff: SubscriptionHandoff
    ) {
        Task {
            let services = shared.services
            if await shared.drivers.register(driverID, connection: connection) {
                services.metrics.reconnect(role: .driver)
            }
            let subscription = await setUp(driverID: driverID, shared: shared, on: connection)
            // A stream that closed meanwhile gets no event (its handler is gone): the handoff cancels the
            // subscription instead.
            if await handoff.handOver(subscription) { connection.post(event: SetUp()) }
        }
    }

    /// Subscribes to the driver's topic, then sends hello, the active trip and the live offer; anything the
    /// bus delivers meanwhile is held back and sent after them, as a stream reader would have. The trip, the
    /// shared state and the offer are read with the other streams opening meanwhile (`DriverSetUps`).
    private static func setUp(driverID: String, shared: StreamServices, on connection: WebSocketConnection) async
        -> BusSubscription
    {
        let services = shared.services
        let gate = BusGate(connection: connection, metrics: services.metrics, time: services.time)
        let subscription = await services.bus.subscribe(
            to: .driver(driverID), sink: { gate.deliver($0) },
            onEnd: {
                connection.close(code: WebSocketCloseCode.reconnectLater.rawValue, reason: "the trip bus went away")
            })
        func send(_ frame: DriverServerFrame) {
            guard let text = try? HailJSON.encodeString(frame) else { return }
            connection.send(text: text)
        }
        send(.hello(serverTime: services.time.now()))
        // Only a lookup that answered may say "no trip": after a failed one the first batch looks again.
        let found = await shared.setUps.setUp(driverID: driverID)
        if let active = found.active { send(.tripUpdated(await services.withLiveFields(active.trip))) }
        if let offer = found.offer, let record = try? await services.trips.record(id: offer.tripID) {
            send(.offer(TripOffer(trip: record.trip, expiresAt: offer.expiresAt)))
        }
        gate.open()
        return subscription
    }

    func received(_ message: WebSocketMessage, on connection: WebSocketConnection) -> WebSocketReadAction {
        guard ready, !ingesting, held.isEmpty else {
            held.append(message)
            return wantsPause ? pause() : .proceed
        }
        take(message, on: connection)
        return wantsPause ? pause() : .proceed
    }

    func event(_ event: any Sendable, on connection: WebSocketConnection) {
        switch event {
        case is SetUp:
            ready = true
        case let committed as Committed:
            if let failure = committed.failure {
                ingesting = false
                connection.close(code: failure.closeCode.rawValue, reason: LiveStreams.reason(failure.message))
                return
            }
            if committed.seq == writingSeq {
                ingesting = false
                writingSeq = nil
            }
            if let index = acks.firstIndex(where: { $0.seq == committed.seq && !$0.done }) { acks[index].done = true }
            flushAcks(on: connection)
        case is Written:
            ingesting = false
            writingSeq = nil
        case let ingested as Ingested:
            ingesting = false
            switch ingested.result {
            case .success(let result):
                acks.append((result.ackSeq, true))
                flushAcks(on: connection)
            case .failure(let error):
                connection.close(code: error.closeCode.rawValue, reason: LiveStreams.reason(error.message))
                return
            }
        default:
            return
        }
        // Messages read before the setup or during an async batch, in order, until one waits again.
        while !held.isEmpty, !ingesting, closeWhenDrained == nil {
            take(held.removeFirst(), on: connection)
        }
        if paused, !wantsPause {
            paused = false
            connection.resumeReading()
        }
    }

    func closed(_ info: WebSocketCloseInfo, on connection: WebSocketConnection) {
        services.metrics.connection(role: .driver, client: client, delta: -1)
        let (handoff, drivers, driverID) = (handoff, drivers, driverID)
        Task {
            await handoff.close()
            await drivers.unregister(driverID, connection: connection)
        }
        ended()
    }

    private var wantsPause: Bool {
        closeWhenDrained != nil || acks.count >= Self.pendingAckLimit || held.count >= Self.heldLimit
    }

    private func pause() -> WebSocketReadAction {
        if paused { return .proceed }
        paused = true
        return .pauseReading
    }

    /// One batch: the rate, the frame, then the ingest on this thread or, in the scaled mode, in a task.
    private func take(_ message: WebSocketMessage, on connection: WebSocketConnection) {
        guard closeWhenDrained == nil else { return }
        if let over = bucket?.takeMessage(now: services.time.now()) {
            refused(over)
            // The messages before this one are answered first; this one and the rest are not read.
            close(WebSocketCloseCode.rateLimited.rawValue, over.message, on: connection)
            return
        }
        let batch: LocationBatch
        do throws(APIError) {
            batch = try LiveStreams.batch(from: LiveStreams.inbound(message))
        } catch {
            close(error.closeCode.rawValue, LiveStreams.reason(error.message), on: connection)
            return
        }
        let seq = batch.seq
        let outcome = services.fleet.ingestNow(
            driverID: driverID, batch: batch, client: client, whenWritten: { connection.post(event: Written()) }
        ) { result in
            let failure: APIError? =
                switch result {
                case .success: nil
                case .failure(let error):
                    APIError(code: .unavailable, message: "storage is unavailable: \(error)")
                }
            connection.post(event: Committed(seq: seq, failure: failure))
        }
        switch outcome {
        case .done(let result)?:
            acks.append((result.ackSeq, true))
            flushAcks(on: connection)
        case .committing(let result)?:
            acks.append((result.ackSeq, false))
        case .writing(let result)?:
            acks.append((result.ackSeq, false))
            ingesting = true
            writingSeq = seq
        case nil:
            ingesting = true
            let (fleet, api, driverID, client) = (services.fleet, api, driverID, client)
            Task {
                do throws(APIError) {
                    let result = try await api.call {
                        try await fleet.ingest(driverID: driverID, batch: batch, client: client)
                    }
                    connection.post(event: Ingested(result: .success(result)))
                } catch {
                    connection.post(event: Ingested(result: .failure(error)))
                }
            }
        }
    }

    /// Closes once every batch read before now has been acknowledged.
    private func close(_ code: UInt16, _ reason: String, on connection: WebSocketConnection) {
        closeWhenDrained = (code, reason)
        held.removeAll()
        flushAcks(on: connection)
    }

    private func flushAcks(on connection: WebSocketConnection) {
        var sent = 0
        while sent < acks.count, acks[sent].done {
            connection.send(text: DriverServerFrame.encodedAck(seq: acks[sent].seq))
            sent += 1
        }
        if sent > 0 { acks.removeFirst(sent) }
        if acks.isEmpty, !ingesting, let close = closeWhenDrained {
            connection.close(code: close.code, reason: close.reason)
        }
    }
}
