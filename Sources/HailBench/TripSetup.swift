import Foundation
import HailNet
import HailProtocol

/// Puts chosen drivers on active trips with a rider watching each, before the measured window, through
/// the real API: the driver reports where it stands, a rider requests a trip from there, the driver takes
/// the offer on a short-lived stream and accepts it, and the rider opens the trip's live stream.
struct TripSetup: Sendable {
    /// Where the drivers' requests go.
    let target: BenchTarget
    /// Where the riders' requests and streams go (another node in the scaled mode).
    let riderTarget: BenchTarget
    /// Distinguishes this run's riders from earlier runs' in a shared database.
    let runTag: String
    /// Opens the streams.
    let client: WebSocketClient
    /// The benchmark's fix 0 time; the position reported here is a second before it.
    let startMilliseconds: Int64

    /// The seconds a driver waits for its offer.
    static let offerTimeoutSeconds = 10.0

    /// One driver on a trip with its rider's stream open.
    struct Pair: Sendable {
        /// The driver's index among the benchmark's.
        let driverIndex: Int
        /// The trip.
        let tripID: String
        /// The rider's `/v1/trips/{id}/live`.
        let rider: WebSocketConnection
    }

    /// Sets up a trip for each of `drivers` (index, token, where its street starts), one after another.
    func run(drivers: [(index: Int, token: String, factory: LocationFrameFactory)]) async -> (
        pairs: [Pair], failures: [String]
    ) {
        var pairs: [Pair] = []
        var failures: [String] = []
        for driver in drivers {
            do throws(BenchError) {
                pairs.append(try await pair(driver.index, token: driver.token, factory: driver.factory))
            } catch {
                failures.append("driver \(driver.index): \(error.description)")
            }
        }
        return (pairs, failures)
    }

    private func pair(_ index: Int, token: String, factory: LocationFrameFactory) async throws(BenchError) -> Pair {
        let origin = factory.origin
        let stamp = (try? WireDate.format(millisecondsSince1970: startMilliseconds - 1_000)) ?? ""
        let position =
            #"{"seq":0,"points":[{"lat":\#(origin.lat),"lng":\#(origin.lng),"accuracy":5,"heading":0,"#
            + #""speed":0,"t":"\#(stamp)"}]}"#
        _ = try await post("/v1/drivers/me/locations", token: token, body: position, key: false)
        let stream: WebSocketConnection
        do {
            stream = try await client.connect(
                to: target.endpoint.webSocketBase + "/v1/drivers/me/live",
                headers: [("Authorization", "Bearer \(token)")])
        } catch {
            throw BenchError("the driver stream for the offer did not open: \(error)")
        }
        defer { stream.close(code: 1000, reason: "offer taken") }
        let riderToken = riderTarget.token(role: .rider, subject: "bench-\(runTag)-rider-\(index)")
        let request =
            #"{"pickup":{"lat":\#(origin.lat),"lng":\#(origin.lng)},"#
            + #""dropoff":{"lat":\#(origin.lat + 0.01),"lng":\#(origin.lng)},"productID":"economy"}"#
        let created = try await post("/v1/trips", token: riderToken, body: request, key: true, on: riderTarget)
        guard let object = try? JSONSerialization.jsonObject(with: Data(created)) as? [String: Any],
            let tripID = object["id"] as? String
        else { throw BenchError("POST /v1/trips answered without a trip id") }
        let offered = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                for await message in stream.messages {
                    guard case .text(let text) = message, text.contains(#""type":"offer""#),
                        let frame = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                        let trip = frame["trip"] as? [String: Any], let id = trip["id"] as? String
                    else { continue }
                    return id
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(Self.offerTimeoutSeconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let offered else {
            throw BenchError("no offer reached the driver within \(Int(Self.offerTimeoutSeconds)) s")
        }
        guard offered == tripID else { throw BenchError("the driver was offered \(offered), not \(tripID)") }
        _ = try await post("/v1/trips/\(tripID)/accept", token: token, body: nil, key: true)
        do {
            let rider = try await client.connect(
                to: riderTarget.endpoint.webSocketBase + "/v1/trips/\(tripID)/live",
                headers: [("Authorization", "Bearer \(riderToken)")])
            return Pair(driverIndex: index, tripID: tripID, rider: rider)
        } catch {
            throw BenchError("the rider's trip stream did not open: \(error)")
        }
    }

    /// POSTs `body` (JSON) with `token`, and a fresh Idempotency-Key when `key`; the body of a 2xx answer.
    private func post(_ path: String, token: String, body: String?, key: Bool, on node: BenchTarget? = nil)
        async throws(BenchError) -> [UInt8]
    {
        let target = node ?? target
        var headers = [("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if key { headers.append(("Idempotency-Key", UUID().uuidString)) }
        let request = HTTPRequestBytes.make(
            method: "POST", path: path, authority: target.endpoint.authority, headers: headers,
            body: Array((body ?? "").utf8))
        let endpoint = target.endpoint
        let replies = await BlockingThreads.run(count: 1) { _ -> Result<HTTPReply, HTTPExchangeError> in
            do throws(HTTPExchangeError) {
                return .success(try HTTPConnection(to: endpoint).exchange(request))
            } catch {
                return .failure(error)
            }
        }
        switch replies.first {
        case .success(let reply)?:
            guard (200..<300).contains(reply.status) else {
                throw BenchError(
                    "POST \(path): HTTP \(reply.status) \(String(decoding: reply.body.prefix(200), as: UTF8.self))")
            }
            return reply.body
        case .failure(let error)?:
            throw BenchError("POST \(path): \(error.label)")
        case nil:
            throw BenchError("POST \(path): no answer")
        }
    }
}
