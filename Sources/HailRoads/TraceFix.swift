import HailCore

/// One fix of a trace to match: where the phone put the car and, when it was driving, which way.
public struct TraceFix: Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// The direction the car was driving, in degrees clockwise from north; nil when the phone gave none or the car
    /// was too slow for it to mean anything (see `init(coordinate:heading:speed:)`).
    public var course: Double?

    /// How fast a car must go for the phone's heading to be its course, in metres per second. A phone's course is
    /// taken from successive positions, and at walking pace the noise of a position (4 m) is more than the car moves
    /// in a second: a car creeping out of a parking bay gets headings all round the compass.
    public static let courseMinimumSpeed = 3.0

    /// A fix whose direction of travel, if any, is `course`.
    public init(coordinate: Coordinate, course: Double? = nil) {
        self.coordinate = coordinate
        self.course = course
    }

    /// A fix as the phone reported it: its heading is kept as the course when it is known (not negative) and the
    /// speed, when known, is at least `courseMinimumSpeed`.
    public init(coordinate: Coordinate, heading: Double?, speed: Double?) {
        self.coordinate = coordinate
        if let heading, heading >= 0, heading.isFinite, let speed, speed >= Self.courseMinimumSpeed {
            course = Heading.normalized(heading)
        } else {
            course = nil
        }
    }
}
