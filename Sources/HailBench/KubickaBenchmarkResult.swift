import Foundation

/// What `hail bench match` measured: route error, recovered and precision per track and fix rate, and fixes/s.
public struct KubickaBenchmarkResult: Encodable, Sendable {
    /// One track matched at one fix rate.
    public struct Score: Encodable, Sendable, Hashable {
        /// The track's name.
        public let track: String
        /// Every how many fixes were matched: 1 is every fix.
        public let stride: Int
        /// Fixes given to the matcher.
        public let fixes: Int
        /// Length of the true route's arcs, metres.
        public let truthMeters: Double
        /// Length of the matched route's arcs, metres.
        public let matchedMeters: Double
        /// Length of the truth's arcs the match missed, metres.
        public let missedMeters: Double
        /// Length of the matched arcs not in the truth, metres.
        public let addedMeters: Double
        /// Places the matched chain broke.
        public let breaks: Int
        /// Seconds the matching took (0 on a manual clock).
        public let seconds: Double

        /// Newson and Krumm's route error: (missed + added) / truth.
        public var routeError: Double { truthMeters > 0 ? (missedMeters + addedMeters) / truthMeters : 0 }
        /// Share of the truth's length matched.
        public var recovered: Double { truthMeters > 0 ? (truthMeters - missedMeters) / truthMeters : 0 }
        /// Share of the matched length in the truth.
        public var precision: Double { matchedMeters > 0 ? (matchedMeters - addedMeters) / matchedMeters : 0 }

        enum CodingKeys: String, CodingKey {
            case track, stride, fixes, truthMeters, matchedMeters, missedMeters, addedMeters, breaks, seconds
            case routeError, recovered, precision
        }

        /// Encodes the stored figures rounded, and the three ratios.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(track, forKey: .track)
            try container.encode(stride, forKey: .stride)
            try container.encode(fixes, forKey: .fixes)
            try container.encode(truthMeters.rounded(toPlaces: 1), forKey: .truthMeters)
            try container.encode(matchedMeters.rounded(toPlaces: 1), forKey: .matchedMeters)
            try container.encode(missedMeters.rounded(toPlaces: 1), forKey: .missedMeters)
            try container.encode(addedMeters.rounded(toPlaces: 1), forKey: .addedMeters)
            try container.encode(breaks, forKey: .breaks)
            try container.encode(seconds.rounded(toPlaces: 4), forKey: .seconds)
            try container.encode(routeError.rounded(toPlaces: 5), forKey: .routeError)
            try container.encode(recovered.rounded(toPlaces: 5), forKey: .recovered)
            try container.encode(precision.rounded(toPlaces: 5), forKey: .precision)
        }
    }

    /// The means over the tracks at one fix rate.
    public struct Summary: Encodable, Sendable, Hashable {
        /// Every how many fixes were matched.
        public let stride: Int
        /// Tracks matched.
        public let tracks: Int
        /// Fixes given to the matcher, all tracks.
        public let fixes: Int
        /// Mean of the tracks' route errors.
        public let meanRouteError: Double
        /// Mean of the tracks' recovered shares.
        public let meanRecovered: Double
        /// Mean of the tracks' precisions.
        public let meanPrecision: Double
        /// Chain breaks, all tracks.
        public let breaks: Int
        /// Fixes matched per second on one thread (0 on a manual clock).
        public let fixesPerSecond: Double
    }

    /// Always "match".
    public let benchmark = "match"
    /// Every track at every fix rate.
    public let scores: [Score]
    /// The means at each fix rate, in the order run.
    public let summaries: [Summary]
    /// Fixes matched per second over every run (0 on a manual clock).
    public let fixesPerSecond: Double
    /// The machine.
    public let machine: BenchMachine

    /// Sums up `scores`, run at `strides`.
    init(scores: [Score], strides: [Int], machine: BenchMachine) {
        self.scores = scores
        self.machine = machine
        summaries = strides.map { stride in
            let runs = scores.filter { $0.stride == stride }
            let count = Double(max(1, runs.count))
            let fixes = runs.map(\.fixes).reduce(0, +)
            let seconds = runs.map(\.seconds).reduce(0, +)
            return Summary(
                stride: stride, tracks: runs.count, fixes: fixes,
                meanRouteError: (runs.map(\.routeError).reduce(0, +) / count).rounded(toPlaces: 5),
                meanRecovered: (runs.map(\.recovered).reduce(0, +) / count).rounded(toPlaces: 5),
                meanPrecision: (runs.map(\.precision).reduce(0, +) / count).rounded(toPlaces: 5),
                breaks: runs.map(\.breaks).reduce(0, +),
                fixesPerSecond: seconds > 0 ? (Double(fixes) / seconds).rounded(toPlaces: 0) : 0)
        }
        let fixes = scores.map(\.fixes).reduce(0, +)
        let seconds = scores.map(\.seconds).reduce(0, +)
        fixesPerSecond = seconds > 0 ? (Double(fixes) / seconds).rounded(toPlaces: 0) : 0
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(title: "hail bench match: Kubicka et al. 2015 ground truth")
        func percent(_ share: Double) -> String { (share * 100).fixed(2) + "%" }
        for score in scores {
            table.add(
                "\(score.track) every \(score.stride)",
                "route error \(percent(score.routeError)), recovered \(percent(score.recovered)), precision "
                    + "\(percent(score.precision)) (\(score.fixes) fixes, \(score.truthMeters.fixed(0)) m true, "
                    + "\(score.missedMeters.fixed(0)) m missed, \(score.addedMeters.fixed(0)) m added, "
                    + "\(score.breaks) breaks)")
        }
        for summary in summaries {
            table.add(
                "mean every \(summary.stride)",
                "route error \(percent(summary.meanRouteError)), recovered \(percent(summary.meanRecovered)), "
                    + "precision \(percent(summary.meanPrecision)); \(summary.fixesPerSecond.fixed(0)) fixes/s "
                    + "(\(summary.fixes) fixes, \(summary.tracks) tracks, \(summary.breaks) breaks)")
        }
        table.add("speed", "\(fixesPerSecond.fixed(0)) fixes/s on one thread, every run")
        table.add("machine", machine.summary)
        return table.text
    }
}
