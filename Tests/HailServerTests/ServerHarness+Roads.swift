import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailServer
import HailTesting
import HailTime
import Synchronization

extension ServerHarness {
    /// The generated city every road test uses (seed 1, 8 x 8 intersections around Monaco).
    static let city = GeneratedCity(seed: 1)

    /// A tariff that reads like a meter: one cent a metre and one a second, no base, no minimum.
    static let meter = PricingTable(
        currency: "EUR",
        tariffs: [.economy: .init(baseMinor: 0, perKilometreMinor: 1000, perMinuteMinor: 60, minimumMinor: 0)])

    /// A harness whose services route on `roads` (the generated city unless given) with the flags document
    /// `flags` (none when empty), on the meter.
    init(flags: String, roads: RoadNetworkSetting = .generatedCity(seed: 1)) async {
        tokens = TokenAuthority(authenticator: TestAuthenticator())
        minter = nil
        var configuration = ServerConfiguration()
        configuration.roads = roads
        configuration.flags = flags.isEmpty ? .none : .text(flags)
        configuration.pricing = Self.meter
        let counter = Mutex(0)
        // One scope of stores is all a test gives the harness; a mix is the test's own mistake.
        services = try! await ServerServices.make(
            configuration: configuration, tokens: tokens, time: Timeline(clock: clock, origin: Self.epoch),
            trips: MemoryTripStore(), history: MemoryLocationHistoryStore(), random: SplitMix64(seed: 7),
            newTripID: {
                counter.withLock {
                    $0 += 1
                    return "trip-\($0)"
                }
            })
        api = HailAPI(services: services)
    }

    /// The intersection of avenue `column` and street `row` in the generated city.
    static func corner(_ column: Int, _ row: Int) -> Coordinate {
        city.graph.coordinates[Int(city.node(column: column, row: row))]
    }

    /// One live fix with a heading (negative: none) and a speed, sent as `client` when given.
    @discardableResult
    func sendFix(
        _ driverID: String, seq: Int64, at coordinate: Coordinate, heading: Double, speed: Double = 8,
        client: String? = nil
    ) async -> APIResponse {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: heading, speed: speed, t: now)
        let body = try! HailJSON.encode(LocationBatch(seq: seq, points: [point]))
        return await call(
            "POST", "/v1/drivers/me/locations", token: token(.driver, driverID), body: body,
            headers: client.map { [HailHeader.client: $0] } ?? [:])
    }

    /// A trip from `pickup` to `dropoff` accepted by `driver-1`, who waits online at `driverAt`.
    func assignedTrip(pickup: Coordinate, dropoff: Coordinate, driverAt: Coordinate) async throws {
        await onlineDriver("driver-1", at: driverAt)
        let body = try HailJSON.encodeString(EstimateRequest(pickup: pickup, dropoff: dropoff))
            .replacingOccurrences(of: "}}", with: #"}, "productID": "economy"}"#)
        await call("POST", "/v1/trips", token: token(.rider, "rider-1"), json: body, key: UUID().uuidString)
        await call("POST", "/v1/trips/trip-1/accept", token: token(.driver, "driver-1"), key: UUID().uuidString)
    }
}
