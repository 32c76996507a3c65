import Foundation
import HailAppSeams
import HailCore
import HailTime

/// Runs one REST call of an app and logs its outcome as a `rest` line: the trip, version and state of a 2xx
/// answer, or the status and code of the error, and how long it took.
struct RESTOutcome: Sendable {
    let log: FleetLog
    let timeline: Timeline

    /// Calls `body`, logging it as `call` on `tripID`; the trip of the answer is read by `trip`.
    func run<T: Sendable>(
        _ call: String, tripID: String?, trip: (T) -> Trip? = { _ in nil }, _ body: () async throws -> T
    ) async throws -> T {
        let started = timeline.now()
        do {
            let value = try await body()
            var line = event(call, tripID: tripID, started: started)
            line.outcome = "ok"
            if let answer = trip(value) {
                line.trip = answer.id
                line.version = answer.version
                line.state = answer.state.rawValue
            }
            log.write(line)
            return value
        } catch {
            var line = event(call, tripID: tripID, started: started)
            line.outcome = "error"
            let failure = error.asCallError
            line.status = failure.status
            line.code = failure.code.description
            line.error = failure.message
            log.write(line)
            throw error
        }
    }

    private func event(_ call: String, tripID: String?, started: Date) -> FleetEvent {
        let now = timeline.now()
        var line = FleetEvent(t: now.timeIntervalSince1970, ev: "rest")
        line.call = call
        line.trip = tripID
        line.ms = (now.timeIntervalSince(started) * 1000).rounded()
        return line
    }
}
