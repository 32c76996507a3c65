/// What `MapMatchBenchmark.run` measured: how much of simulated drives the matcher recovers.
public struct MapMatchBenchmarkResult: Sendable, Hashable {
    /// Traces matched.
    public var traces: Int
    /// Fixes in all traces.
    public var points: Int
    /// Seconds of driving between fixes.
    public var sampleSeconds: Double
    /// The GPS noise added, in metres (Gaussian, each axis).
    public var noiseMeters: Double
    /// The share of the true routes' length whose edges the matched paths contain, 0 to 1.
    public var recoveredShare: Double
    /// Matched driven distance over the true distance between the first and last fix, summed over traces.
    public var distanceRatio: Double
    /// Chain breaks over all traces.
    public var breaks: Int
    /// Fixes matched per second, one thread.
    public var pointsPerSecond: Double
}
