import Foundation
import HailCore
import HailProtocol
import HailServer

extension City {
    /// What the simulated rider watching `tripID` sees right now (pin freshness, banner, the smoothed ETA in
    /// minutes, where the glide draws the car), beside where the car truly is; nil when no simulated rider
    /// watches that trip.
    public func riderView(tripID: String) async -> DemoRiderView? {
        let apps = consoleApps
        guard let rider = apps.riders.first(where: { $0.model.trip?.id == tripID }), let trip = rider.model.trip
        else { return nil }
        let screen = rider.model.screen
        let glide = rider.model.marker(at: apps.now)?.coordinate
        let shown = rider.model.driverLocation
        var truth: Coordinate?
        if let driverID = trip.driver?.id, let driver = apps.drivers.first(where: { $0.id == driverID }) {
            truth = await driver.car.position
        }
        return DemoRiderView(
            tripID: trip.id, state: trip.state, version: trip.version, pin: screen.pin?.rawValue,
            showsDelayedBanner: screen.showsDelayedBanner, etaMinutes: screen.etaMinutes, glide: glide, shown: shown,
            truth: truth)
    }

    /// Presses `fault` on the simulated app of the trip it names: the driver serving it (a dead zone),
    /// or the rider watching it (a stalled socket, a killed app).
    public func press(_ fault: DemoFault) async throws(APIError) -> DemoFaultAnswer {
        let apps = consoleApps
        let tripID = fault.tripID ?? ""
        switch fault.kind {
        case .restartServer:
            throw APIError.notFound("the city cannot restart the server; `hail demo` does")
        case .deadZone:
            guard
                let driver = apps.drivers.first(where: { $0.model.trip?.id == tripID })
                    ?? apps.riders.first(where: { $0.model.trip?.id == tripID })?.model.trip?.driver.flatMap({
                        driver in apps.drivers.first { $0.id == driver.id }
                    })
            else { throw APIError.notFound("no simulated driver serves trip \(tripID.prefix(60))") }
            let seconds = fault.seconds ?? 20
            let end = await driver.pressDeadZone(seconds: seconds)
            return DemoFaultAnswer(
                done: "\(driver.id) is in a dead zone for \(Int(seconds)) s", until: Date(timeIntervalSince1970: end))
        case .stallRider, .killRider:
            guard let rider = apps.riders.first(where: { $0.model.trip?.id == tripID }) else {
                throw APIError.notFound("no simulated rider watches trip \(tripID.prefix(60))")
            }
            if fault.kind == .killRider {
                rider.pressKill()
                return DemoFaultAnswer(done: "the rider's app is killed; it relaunches in about 3 s", until: nil)
            }
            let seconds = fault.seconds ?? 12
            let end = await rider.pressStall(seconds: seconds)
            return DemoFaultAnswer(
                done: "the rider's socket is stalled for \(Int(seconds)) s", until: Date(timeIntervalSince1970: end))
        }
    }
}

/// The demo city as the server's console sees it (`DemoConsole.attach`): every call hops to the main
/// actor, where the city's apps live.
public struct CityConsole: DemoControls {
    private let city: City

    /// The console of `city`.
    public init(city: City) { self.city = city }

    /// What the simulated rider watching `tripID` sees now.
    public func riderView(tripID: String) async -> DemoRiderView? {
        await city.riderView(tripID: tripID)
    }

    /// Presses `fault` in the city.
    public func press(_ fault: DemoFault) async throws(APIError) -> DemoFaultAnswer {
        try await city.press(fault)
    }
}
