import Foundation
import HailAppSeams
import HailCore
import HailProtocol

/// A `DriverAPI` for SwiftUI previews: every call answers at once, actions move the preview ride on a state.
public actor PreviewDriverAPI: DriverAPI {
    private var current: Trip?

    /// A driver with no trip, or already on `trip`.
    public init(trip: Trip? = nil) { current = trip }

    /// Taken.
    public func setStatus(_ status: DriverStatusRequest) async throws {}

    /// Acknowledged at once.
    public func sendLocations(_ batch: LocationBatch) async throws -> LocationAck { LocationAck(seq: batch.seq) }

    /// The trip accepted, while it runs.
    public func activeTrip() async throws -> Trip? { current?.state.isActive == true ? current : nil }

    /// The trip accepted; any other id is refused as the server would.
    public func trip(id: String) async throws -> Trip {
        guard let current, current.id == id else { throw CallError.refused(.notFound("no trip \(id)")) }
        return current
    }

    /// The preview ride, assigned to this driver.
    public func accept(tripID: String, key: UUID) async throws -> Trip {
        let trip = PreviewRide.trip(.driverAssigned, version: 2)
        current = trip
        return trip
    }

    /// Taken.
    public func decline(tripID: String) async throws {}

    /// The trip one state on: arrived, started, ended.
    public func report(_ event: TripEventKind, tripID: String, key: UUID, path: [LocationPoint]?) async throws -> Trip {
        guard let trip = current else { throw CallError.refused(.notFound("no trip \(tripID)")) }
        let state: TripState
        switch event {
        case .arrived: state = .driverArrived
        case .started: state = .onTrip
        case .ended: state = .completed
        }
        let next = PreviewRide.trip(state, version: trip.version + 1)
        current = next
        return next
    }

    /// Cancelled, one version on.
    public func cancel(tripID: String, key: UUID) async throws -> Trip {
        guard var trip = current else { throw CallError.refused(.notFound("no trip \(tripID)")) }
        trip.state = .cancelled
        trip.version += 1
        current = trip
        return trip
    }
}

/// A `DriverChannel` for SwiftUI previews: connected at once, every batch acknowledged on the frames it returns.
public actor PreviewDriverChannel: DriverChannel {
    private var continuation: AsyncStream<DriverServerFrame>.Continuation?

    /// A channel not yet connected.
    public init() {}

    /// A stream that says hello and acknowledges what is sent.
    public func connect() async throws -> AsyncStream<DriverServerFrame> {
        continuation?.finish()
        let (frames, continuation) = AsyncStream.makeStream(of: DriverServerFrame.self)
        continuation.yield(.hello(serverTime: Date()))
        self.continuation = continuation
        return frames
    }

    /// Acknowledged at once; refused when not connected, as a closed socket is.
    public func send(_ batch: LocationBatch) async throws {
        guard let continuation else { throw CallError.noAnswer("the preview stream is not open") }
        continuation.yield(.ack(LocationAck(seq: batch.seq)))
    }

    /// Ends the stream.
    public func disconnect() async {
        continuation?.finish()
        continuation = nil
    }
}

/// A `LocationSource` for SwiftUI previews: the preview ride's approach, one fix every `interval` of `clock`.
public struct PreviewLocationSource<C: Clock>: LocationSource where C.Duration == Duration {
    private let clock: C
    private let interval: Duration

    /// A source whose fixes come every `interval` of `clock`.
    public init(clock: C, interval: Duration = .seconds(1)) {
        self.clock = clock
        self.interval = interval
    }

    /// The approach, fix by fix, each stamped when it is taken.
    public func fixes() -> AsyncStream<LocationPoint> {
        let (clock, interval) = (self.clock, self.interval)
        return AsyncStream { continuation in
            let task = Task {
                for coordinate in PreviewRide.approach {
                    continuation.yield(
                        LocationPoint(
                            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 35, speed: 9, t: Date()))
                    do { try await clock.sleep(for: interval) } catch { break }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Any policy: the preview's fixes come as they do.
    public func apply(_ policy: LocationPolicy) async {}
}

extension PreviewLocationSource where C == ContinuousClock {
    /// A source on the real clock, a fix a second.
    public init() { self.init(clock: ContinuousClock()) }
}
