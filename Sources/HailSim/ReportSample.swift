import Foundation

/// One point of a run's time line, taken from the measured report while the city runs: the HTML report
/// plots trips by state over time and marks where backward moves and jumps happened.
public struct ReportSample: Sendable, Hashable, Codable {
    /// Seconds since the measured window opened.
    public var seconds: Double
    /// Trips under way by state.
    public var tripsByState: [String: Int]
    /// Backward moves seen so far.
    public var backwardMoves: Int
    /// Jumps over 50 m seen so far.
    public var jumpsOver50m: Int

    /// Creates a sample.
    public init(seconds: Double, tripsByState: [String: Int], backwardMoves: Int, jumpsOver50m: Int) {
        self.seconds = seconds
        self.tripsByState = tripsByState
        self.backwardMoves = backwardMoves
        self.jumpsOver50m = jumpsOver50m
    }

    /// The sample of `report` taken `seconds` into the measured window.
    public init(_ report: SimulationReport, at seconds: Double) {
        self.init(
            seconds: seconds, tripsByState: report.trips.inProgress, backwardMoves: report.backwardMoves,
            jumpsOver50m: report.jumpsOver50m)
    }
}
