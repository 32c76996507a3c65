import Foundation

/// What `hail bench client` measured, printed as a table or as one JSON object.
public struct ClientBenchmarkResult: Encodable, Sendable {
    /// One core over a simulated shift.
    public struct Shift: Encodable, Sendable {
        /// Which core.
        public let core: String
        /// Updates (rider) or fixes (driver) fed in.
        public let events: Int
        /// Process RSS at the start and after each simulated hour, bytes.
        public let hourlyRssBytes: [Int]
        /// What the core holds at the end (counts that must stay bounded).
        public let retained: [String: Int]
        /// End minus start RSS, bytes.
        public var rssGrowthBytes: Int { (hourlyRssBytes.last ?? 0) - (hourlyRssBytes.first ?? 0) }
        /// Last hour's RSS minus the first hour's: growth once warmed up, bytes.
        public var rssGrowthAfterFirstHourBytes: Int {
            hourlyRssBytes.count > 1 ? (hourlyRssBytes.last ?? 0) - hourlyRssBytes[1] : 0
        }

        private enum CodingKeys: String, CodingKey {
            case core, events, hourlyRssBytes, retained, rssGrowthBytes, rssGrowthAfterFirstHourBytes
        }

        /// Encodes the readings and the growth.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(core, forKey: .core)
            try container.encode(events, forKey: .events)
            try container.encode(hourlyRssBytes, forKey: .hourlyRssBytes)
            try container.encode(retained, forKey: .retained)
            try container.encode(rssGrowthBytes, forKey: .rssGrowthBytes)
            try container.encode(rssGrowthAfterFirstHourBytes, forKey: .rssGrowthAfterFirstHourBytes)
        }
    }

    /// Always "client".
    public let benchmark = "client"
    /// Glide frames timed.
    public let frames: Int
    /// Of those, frames that drew a marker.
    public let framesDrawn: Int
    /// Nanoseconds per glide frame (`Glide.marker(at:)`).
    public let nanosecondsPerFrame: Double
    /// State-machine applies timed.
    public let applies: Int
    /// Of those, applied in order (the rest: stale or a jump).
    public let applied: Int
    /// Nanoseconds per `TripStateMachine.apply`.
    public let nanosecondsPerApply: Double
    /// The rider core's shift.
    public let rider: Shift
    /// The driver core's shift.
    public let driver: Shift
    /// The machine.
    public let machine: BenchMachine

    /// Builds the result from the timings.
    init(
        frames: Int, framesDrawn: Int, frameSeconds: Double, applies: Int, applied: Int, applySeconds: Double,
        rider: Shift, driver: Shift, machine: BenchMachine
    ) {
        self.frames = frames
        self.framesDrawn = framesDrawn
        nanosecondsPerFrame = (frameSeconds * 1e9 / Double(max(1, frames))).rounded(toPlaces: 1)
        self.applies = applies
        self.applied = applied
        nanosecondsPerApply = (applySeconds * 1e9 / Double(max(1, applies))).rounded(toPlaces: 1)
        self.rider = rider
        self.driver = driver
        self.machine = machine
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(title: "hail bench client: rider and driver cores")
        table.add(
            "glide frame", "\(nanosecondsPerFrame.fixed(1)) ns (\(frames) frames, \(framesDrawn) drew a marker)")
        table.add("state-machine apply", "\(nanosecondsPerApply.fixed(1)) ns (\(applies) applies, \(applied) in order)")
        for shift in [rider, driver] {
            let hourly = shift.hourlyRssBytes.map { (Double($0) / 1_048_576).fixed(1) }.joined(separator: ", ")
            table.add(
                shift.core,
                "\(shift.events) events over \(shift.hourlyRssBytes.count - 1) h; RSS MiB hourly: \(hourly); growth "
                    + "\(shift.rssGrowthBytes / 1024) KiB (\(shift.rssGrowthAfterFirstHourBytes / 1024) KiB after the first hour)"
            )
            let retained = shift.retained.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            table.add("  holds at the end", retained.joined(separator: ", "))
        }
        table.add("machine", machine.summary)
        return table.text
    }
}
