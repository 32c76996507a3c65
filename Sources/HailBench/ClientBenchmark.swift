import Foundation
import HailCore
import HailDriver
import HailTime

/// `hail bench client`: the cost of the rider core's per-frame and per-update work, and whether the rider
/// and driver cores hold their memory flat over a simulated 10-hour shift. Time in the shift is virtual
/// (a date advanced by hand, as a manual clock would); only the microbenchmarks read the real clock.
public struct ClientBenchmark: Sendable {
    /// Glide frames timed.
    public var frames = 1_000_000
    /// State-machine applies timed.
    public var applies = 1_000_000
    /// Hours of simulated shift.
    public var shiftHours = 10

    /// The defaults: a million frames and applies, a 10-hour shift.
    public init() {}

    /// Where the simulated car drives (Monaco, northwards).
    static let origin = Coordinate(lat: 43.7300, lng: 7.4200)
    /// Seconds between the rider's position updates.
    static let updateSeconds = 3.0
    /// Frames per second the rider's map draws.
    static let framesPerSecond = 60.0
    /// Minutes per simulated trip in the shift.
    static let tripMinutes = 20

    /// Runs the microbenchmarks, then the two shifts.
    public func run() -> ClientBenchmarkResult {
        let clock = ContinuousClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        // Glide: 16 fixes 3 s apart, then frames spread over the span they cover.
        var glide = Glide()
        for index in 0..<16 { _ = glide.add(Self.location(index, start: start)) }
        var drawn = 0
        let frameStart = clock.now
        for frame in 0..<frames {
            let now = start.addingTimeInterval(6 + Double(frame % 40_000) * 0.001)
            if glide.marker(at: now) != nil { drawn += 1 }
        }
        let frameSeconds = (clock.now - frameStart).timeInterval
        // State machine: one trip's versions, cycling through the states of a ride.
        var machine = TripStateMachine()
        var applied = 0
        let applyStart = clock.now
        for index in 0..<applies {
            if case .applied = machine.apply(Self.trip(number: index / 4, version: index % 4 + 1)) { applied += 1 }
        }
        let applySeconds = (clock.now - applyStart).timeInterval
        let rider = riderShift(start: start)
        let driver = driverShift(start: start)
        return ClientBenchmarkResult(
            frames: frames, framesDrawn: drawn, frameSeconds: frameSeconds, applies: applies, applied: applied,
            applySeconds: applySeconds, rider: rider, driver: driver, machine: BenchMachine.current())
    }

    /// The rider core over the shift: a position every 3 s into the glide, 60 frames a second drawn from
    /// it, a new trip every 20 minutes through its states; RSS read every simulated hour.
    func riderShift(start: Date) -> ClientBenchmarkResult.Shift {
        var glide = Glide()
        var machine = TripStateMachine()
        var samples = [ProcessUsage.current()?.residentBytes ?? 0]
        let updatesPerHour = Int(3600 / Self.updateSeconds)
        let framesPerUpdate = Int(Self.updateSeconds * Self.framesPerSecond)
        var moving = 0
        var updates = 0
        for hour in 0..<shiftHours {
            for step in 0..<updatesPerHour {
                let index = hour * updatesPerHour + step
                _ = glide.add(Self.location(index, start: start))
                updates += 1
                let updateTime = start.addingTimeInterval(Double(index) * Self.updateSeconds)
                let tripSeconds = Double(Self.tripMinutes * 60)
                let sinceTrip = updateTime.timeIntervalSince(start).truncatingRemainder(dividingBy: tripSeconds)
                let phase = Int(sinceTrip / (tripSeconds / 4)) + 1
                machine.apply(Self.trip(number: Int(updateTime.timeIntervalSince(start) / tripSeconds), version: phase))
                for frame in 0..<framesPerUpdate {
                    let now = updateTime.addingTimeInterval(Double(frame) / Self.framesPerSecond)
                    if glide.marker(at: now)?.isMoving == true { moving += 1 }
                }
            }
            samples.append(ProcessUsage.current()?.residentBytes ?? 0)
        }
        return ClientBenchmarkResult.Shift(
            core: "rider (Glide + TripStateMachine)", events: updates, hourlyRssBytes: samples,
            retained: ["glideCapacity": glide.configuration.capacity, "framesMoving": moving])
    }

    /// The driver core over the shift: a fix every second on trip at full accuracy through the location
    /// pipeline, wake-ups when asked, every batch acknowledged; RSS read every simulated hour.
    func driverShift(start: Date) -> ClientBenchmarkResult.Shift {
        var pipeline = DriverLocationPipeline(
            policy: LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false))
        var wake: Date?
        var sends = 0
        /// Carries out the pipeline's actions: every batch acknowledged at once.
        func handle(_ actions: [DriverLocationPipeline.Action]) {
            for action in actions {
                switch action {
                case .send(let batch, _):
                    sends += 1
                    pipeline.ack(batch.seq)
                case .wake(let date): wake = date
                }
            }
        }
        handle(pipeline.linkUp(.stream, now: start))
        var samples = [ProcessUsage.current()?.residentBytes ?? 0]
        var fixes = 0
        for hour in 0..<shiftHours {
            for second in 0..<3_600 {
                let index = hour * 3_600 + second
                let now = start.addingTimeInterval(Double(index))
                while let due = wake, due < now {
                    wake = nil
                    handle(pipeline.tick(now: due))
                }
                // Up and down a 6 km street at 12 m/s, so every fix passes the filter.
                let leg = index % 1_000
                let along = (index / 1_000) % 2 == 0 ? leg : 1_000 - leg
                let point = LocationPoint(
                    lat: Self.origin.lat + Double(along) * 6 / 111_320, lng: Self.origin.lng, accuracy: 5,
                    heading: (index / 1_000) % 2 == 0 ? 0 : 180, speed: 6, t: now)
                handle(pipeline.fix(point, now: now))
                fixes += 1
            }
            samples.append(ProcessUsage.current()?.residentBytes ?? 0)
        }
        return ClientBenchmarkResult.Shift(
            core: "driver (DriverLocationPipeline)", events: fixes, hourlyRssBytes: samples,
            retained: [
                "sends": sends, "bufferedPoints": pipeline.batcher.buffer.count,
                "pendingPoints": pipeline.batcher.pending.count, "inFlightBatches": pipeline.batcher.inFlight.count,
            ])
    }

    /// Position number `index` of the simulated car: 12 m north per 3 s step, back to the start every 24 km.
    static func location(_ index: Int, start: Date) -> DriverLocation {
        DriverLocation(
            coordinate: Coordinate(lat: origin.lat + Double(index % 2_000) * 12 / 111_320, lng: origin.lng),
            heading: 0,
            seq: Int64(index + 1), receivedAt: start.addingTimeInterval(Double(index) * updateSeconds))
    }

    /// Trip `number` at `version` (1 assigned, 2 arrived, 3 on trip, 4 completed).
    static func trip(number: Int, version: Int) -> Trip {
        let states: [TripState] = [.driverAssigned, .driverArrived, .onTrip, .completed]
        return Trip(
            id: "trip-\(number)", state: states[(version - 1) % states.count], pickup: origin,
            dropoff: Coordinate(lat: origin.lat + 0.01, lng: origin.lng), productID: .economy, version: version)
    }
}
