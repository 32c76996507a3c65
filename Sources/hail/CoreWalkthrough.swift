import Foundation
import HailCore

/// `hail demo` until the server exists: one trip in Monaco, decided by the trip rules and watched
/// through the rider's core on a virtual clock, including a tunnel that starves the pin of fixes.
struct CoreWalkthrough {
    static let usage = """
        usage: hail walkthrough

        Plays one trip through Hail's core on a virtual clock and prints what the rider's screen would show
        each second: trip state and version, the glided car, pin freshness, the smoothed ETA, and the
        "Driver's location may be delayed" banner while the car is in a tunnel.
        """

    private let start = Date(timeIntervalSince1970: 1_796_220_000)  // 2026-12-02, a Wednesday morning
    private let riderID = "rider-demo"
    private let driver = Driver(
        id: "driver-asha", name: "Asha", carModel: "Toyota Prius", plate: "MC 1850", rating: 4.9,
        photoURL: URL(string: "https://hail.invalid/drivers/asha.jpg")!)

    /// A drive along the Boulevard Albert Ier towards the casino, one fix every 3 s, with a tunnel.
    private let route: [Coordinate] = [
        Coordinate(lat: 43.73317, lng: 7.41880), Coordinate(lat: 43.73395, lng: 7.42070),
        Coordinate(lat: 43.73498, lng: 7.42193), Coordinate(lat: 43.73628, lng: 7.42309),
        Coordinate(lat: 43.73781, lng: 7.42425), Coordinate(lat: 43.73936, lng: 7.42760),
    ]

    func run() {
        print("Hail core walkthrough: one trip, the rider's screen second by second (virtual time).\n")
        var record: TripRecord?
        record = decide(
            .request(
                TripRequest(pickup: route.last!, dropoff: route.first!, productID: .economy),
                tripID: "trip-demo"), by: .rider(riderID), on: record, at: 0)
        record = decide(.offerAccepted(driver, etaSeconds: 100), by: .driver(driver.id), on: record, at: 4)

        var glide = Glide(configuration: .init(renderDelay: 3))
        var smoother = EtaSmoother()
        // The server's estimate of the arrival: its ETA counts from when it was made.
        var arrival = record?.trip.etaSeconds.map { start.addingTimeInterval(Double(4 + $0)) }
        var lastFix: Date?
        var seq: Int64 = 0
        var sentIndex = 0
        let path = densified(route, points: 40)
        // Fixes every 3 s, except seconds 45-75 where the car is in a tunnel.
        for second in 6...160 {
            let now = start.addingTimeInterval(Double(second))
            let inTunnel = (45..<75).contains(second)
            // The car keeps driving through the tunnel; only its fixes stop.
            let index = min(path.count - 1, (second - 6) / 3 + 1)
            if second % 3 == 0, !inTunnel, index > sentIndex {
                sentIndex = index
                seq += 1
                let here = path[index]
                let heading = path[index - 1].bearing(to: here)
                glide.add(DriverLocation(coordinate: here, heading: heading, seq: seq, receivedAt: now))
                lastFix = now
                let remaining = Array(path[index...]).pathLength
                let eta = Int(remaining / 9)  // about 32 km/h through town
                record = decide(.etaUpdated(seconds: eta), by: .system, on: record, at: second, quiet: true)
                arrival = record?.trip.etaSeconds.map { now.addingTimeInterval(Double($0)) }
            }
            let pin = PinFreshness(receivedAt: lastFix, serverNow: now)
            smoother.observe(arrival: arrival, fixTakenAt: lastFix, at: now)
            let minutes = smoother.shown(at: now)
            if second % 3 == 0 || (40...80).contains(second) {
                printFrame(second: second, record: record, marker: glide.marker(at: now), pin: pin, minutes: minutes)
            }
            if index == path.count - 1, record?.trip.state == .driverAssigned,
                lastFix.map({
                    now.timeIntervalSince($0) >= 3
                }) == true
            {
                record = decide(.arrived, by: .driver(driver.id), on: record, at: second)
                break
            }
        }
        record = decide(.started, by: .driver(driver.id), on: record, at: 140)
        record = decide(.riderCancels, by: .rider(riderID), on: record, at: 150)
        record = decide(
            .ended(fare: Money(amountMinor: 1850, currency: "EUR")), by: .driver(driver.id),
            on: record, at: 600)
        if let fare = record?.trip.fare {
            print(
                "\nFare shown to the rider: \(fare.amountMinor / 100).\(String(format: "%02d", fare.amountMinor % 100)) \(fare.currency)"
            )
        }
        print("\nNext: `hail server` and the live city map arrive with the server and simulator issues.")
    }

    private func decide(
        _ intent: TripIntent, by actor: TripActor, on record: TripRecord?, at second: Int, quiet: Bool = false
    ) -> TripRecord? {
        switch TripRules.decide(intent, by: actor, on: record) {
        case .success(let next):
            if !quiet {
                print(
                    String(
                        format: "t=%3ds  %-28@ -> %@ (version %d)", second, "\(actor) \(intent.name)" as NSString,
                        next.trip.state.rawValue, next.trip.version))
            }
            return next
        case .failure(let rejection):
            print(
                String(
                    format: "t=%3ds  %-28@ refused: %@", second, "\(actor) \(intent.name)" as NSString,
                    rejection.message))
            return record
        }
    }

    private func printFrame(second: Int, record: TripRecord?, marker: Glide.Marker?, pin: PinFreshness, minutes: Int?) {
        let car =
            marker.map {
                String(
                    format: "car %.5f,%.5f heading %3.0f%@", $0.coordinate.lat, $0.coordinate.lng,
                    $0.heading, $0.isMoving ? " gliding" : " resting")
            } ?? "no car yet"
        let eta = minutes.map { "ETA \($0) min" } ?? "ETA --"
        let age = pin.age.map { String(format: "%4.1fs old", $0) } ?? "no fix"
        let banner = pin.showsDelayedBanner ? "  [Driver's location may be delayed]" : ""
        print("t=\(String(format: "%3d", second))s  \(car)  pin \(pin.level.rawValue) (\(age))  \(eta)\(banner)")
    }

    /// `points` evenly spaced points along `polyline`.
    private func densified(_ polyline: [Coordinate], points: Int) -> [Coordinate] {
        (0..<points).compactMap { polyline.point(atFraction: Double($0) / Double(points - 1))?.coordinate }
    }
}
