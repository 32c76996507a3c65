/// Compass headings in degrees: 0 is north, 90 east, clockwise.
public enum Heading {
    /// `degrees` brought into [0, 360).
    public static func normalized(_ degrees: Double) -> Double {
        let wrapped = degrees.truncatingRemainder(dividingBy: 360)
        let positive = wrapped < 0 ? wrapped + 360 : wrapped
        // -0.0 and 360 (from a tiny negative input) both print badly; fold them onto 0.
        return positive >= 360 || positive == 0 ? 0 : positive
    }

    /// The signed turn in degrees, in (-180, 180], that takes `from` to `to` the short way round.
    ///
    /// Positive is clockwise. 350 to 10 is +20, not -340; a half turn is +180.
    public static func shortestTurn(from: Double, to: Double) -> Double {
        let difference = normalized(to - from)
        return difference > 180 ? difference - 360 : difference
    }

    /// The heading `fraction` of the way from `from` to `to`, turning the short way round, in [0, 360).
    public static func interpolated(from: Double, to: Double, fraction: Double) -> Double {
        normalized(from + shortestTurn(from: from, to: to) * fraction.clamped(to: 0...1))
    }
}
