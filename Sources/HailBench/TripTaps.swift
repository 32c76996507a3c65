import Foundation
import HailNet

/// The trip changes `hail bench restarts` makes while nodes restart: a driver's tap (`arrived`, `started`) on each
/// watched trip through the front, under one idempotency key retried until answered, as the app's outbox does; and
/// each trip's version read back as its rider reads it.
struct TripTaps: Sendable {
    /// The front.
    let target: BenchTarget
    /// Every driver's token, by index.
    let driverTokens: [String]

    /// Taps `event` on every pair's trip (16 at a time); the number of taps refused or not answered within
    /// `seconds` of the first (one deadline for them all, as a phase is: a loaded front must not stretch it).
    func tap(_ event: String, pairs: [TripSetup.Pair], seconds: Double = 45) async -> Int {
        let endpoint = target.endpoint
        let deadline = Date().addingTimeInterval(seconds)
        let results = await BlockingThreads.run(count: 16) { thread -> Int in
            var failed = 0
            for index in stride(from: thread, to: pairs.count, by: 16) {
                let pair = pairs[index]
                let key = UUID().uuidString
                let body = Array(#"{"event":"\#(event)","idempotencyKey":"\#(key)"}"#.utf8)
                let request = HTTPRequestBytes.make(
                    method: "POST", path: "/v1/trips/\(pair.tripID)/events", authority: endpoint.authority,
                    headers: [
                        ("Authorization", "Bearer \(driverTokens[pair.driverIndex])"),
                        ("Content-Type", "application/json"), ("Idempotency-Key", key),
                    ], body: body)
                var answered = false
                while !answered, Date() < deadline {
                    do throws(HTTPExchangeError) {
                        let reply = try HTTPConnection(to: endpoint).exchange(request)
                        if (200..<300).contains(reply.status) {
                            answered = true
                        } else if (400..<500).contains(reply.status), reply.status != 429 {
                            break
                        } else {
                            Thread.sleep(forTimeInterval: 0.5)
                        }
                    } catch {
                        Thread.sleep(forTimeInterval: 0.5)
                    }
                }
                if !answered { failed += 1 }
            }
            return failed
        }
        return results.reduce(0, +)
    }

    /// Each pair's trip version (`GET /v1/trips/{id}` with its rider's token); trips that did not answer are left out.
    func versions(_ pairs: [TripSetup.Pair], riderToken: @escaping @Sendable (Int) -> String) async -> [String: Int] {
        let endpoint = target.endpoint
        // One deadline for the whole read: a trip not read by then counts as neither lost nor doubled.
        let deadline = Date().addingTimeInterval(45)
        let parts = await BlockingThreads.run(count: 16) { thread -> [String: Int] in
            var found: [String: Int] = [:]
            var connection: HTTPConnection?
            for index in stride(from: thread, to: pairs.count, by: 16) where Date() < deadline {
                let pair = pairs[index]
                let request = HTTPRequestBytes.make(
                    method: "GET", path: "/v1/trips/\(pair.tripID)", authority: endpoint.authority,
                    headers: [("Authorization", "Bearer \(riderToken(pair.driverIndex))")], body: [])
                do throws(HTTPExchangeError) {
                    if connection == nil { connection = try HTTPConnection(to: endpoint) }
                    let reply = try connection!.exchange(request)
                    if reply.closes { connection = nil }
                    guard reply.status == 200,
                        let object = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any],
                        let version = object["version"] as? Int
                    else { continue }
                    found[pair.tripID] = version
                } catch {
                    connection = nil
                }
            }
            return found
        }
        return parts.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
    }
}
