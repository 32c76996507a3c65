import Foundation
import HailCore
import HailProtocol
import HailServer
import Synchronization
import Testing

@testable import HailServer

/// A geo index that never answers a search (a Redis paused mid-call), and counts the searches it was asked.
final class StalledGeoIndex: GeoIndex {
    let searches = Mutex(0)
    var scope: StateScope { .process }

    func update(driverID: String, coordinate: Coordinate, seenAt: Date) async throws {}
    func remove(driverID: String) async throws {}
    func nearest(to center: Coordinate, radius: Double, limit: Int, now: Date) async throws -> [GeoHit] {
        searches.withLock { $0 += 1 }
        // Stalled: the request's deadline, not this, ends the wait (the work is dropped, not cancelled).
        try await Task.sleep(for: .seconds(3600))
        return []
    }
    func evict(silentFor silence: TimeInterval, now: Date) async throws -> [String] { [] }
}

/// A request's deadline counts from its arrival, not from when its handler started: the client has waited
/// since it sent the request, queued or not.
@Suite("The request deadline counts from the request's arrival")
struct RequestDeadlineTests {
    static let estimate = #"{"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7314, "lng": 7.4197}}"#

    @Test func theBudgetIsTheDeadlineLessTheTimeSinceArrival() {
        let arrived = ContinuousClock.now
        let budget = RequestBudget(deadline: .seconds(4), receivedAt: arrived)
        #expect(budget.remaining(now: arrived) == .seconds(4))
        #expect(budget.remaining(now: arrived + .milliseconds(1300)) == .milliseconds(2700))
        #expect(budget.remaining(now: arrived + .seconds(4)) == .zero)
        #expect(budget.remaining(now: arrived + .seconds(9)) == .zero)
    }

    @Test func aRequestQueuedPastItsDeadlineBehindAStalledBackendIsA503WithRetryAfterAndStartsNoWork() async throws {
        let geo = StalledGeoIndex()
        var configuration = ServerConfiguration()
        configuration.requestDeadline = .seconds(4)
        let h = await ServerHarness(geo: geo, configuration: configuration)
        let rider = h.token(.rider, "rider-1")
        // Read 4.5 s ago and only now reaching its handler (behind a busy loop and the stalled requests ahead).
        let queued = APIRequest(
            method: "POST", target: "/v1/estimates",
            headers: ["Authorization": "Bearer \(rider)", "Content-Type": "application/json"],
            body: Data(Self.estimate.utf8), receivedAt: .now - .milliseconds(4500))
        let answer = await h.api.handle(queued)
        #expect(answer.status == 503)
        #expect(answer.headers[HailHeader.retryAfter] == "2")
        let error = try HailJSON.decode(ErrorBody.self, from: answer.body).error
        #expect(error.code == .unavailable)
        #expect(error.message == "no answer within 4 s of its arrival: the server is busy; retry")
        // Answered without asking the stalled backend: its answer would have come after the client gave up.
        #expect(geo.searches.withLock { $0 } == 0)
    }

    @Test func aRequestWithTimeLeftWaitsOnlyWhatIsLeftForAStalledBackend() async throws {
        let geo = StalledGeoIndex()
        var configuration = ServerConfiguration()
        configuration.requestDeadline = .seconds(4)
        let h = await ServerHarness(geo: geo, configuration: configuration)
        let rider = h.token(.rider, "rider-1")
        // 3.5 s of its 4 s spent before its handler ran: the race gets the half second left, not a fresh 4 s
        // (which the test would wait out too, but then the 503 would not name the arrival).
        let late = APIRequest(
            method: "POST", target: "/v1/estimates",
            headers: ["Authorization": "Bearer \(rider)", "Content-Type": "application/json"],
            body: Data(Self.estimate.utf8), receivedAt: .now - .milliseconds(3500))
        let answer = await h.api.handle(late)
        #expect(answer.status == 503)
        #expect(answer.headers[HailHeader.retryAfter] == "2")
        let error = try HailJSON.decode(ErrorBody.self, from: answer.body).error
        #expect(error.message == "no answer within 4 s of its arrival: a backend is slow or unreachable; retry")
    }
}
