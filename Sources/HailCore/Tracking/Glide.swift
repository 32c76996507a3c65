import Foundation

/// Moves the rider's car smoothly between fixes: asked for the marker at display time `now`, it renders
/// `renderDelay` seconds in the past so there is always a next fix to move towards.
///
/// Rules, from the design:
/// - positions are placed on a timeline by their server `receivedAt`; only fixes with a newer seq are
///   taken, so the car never moves backwards;
/// - between two fixes the car follows the road path supplied with the newer fix, or a straight line; a
///   path that does not start where the car is (the server drew it from a fix this screen never got) is
///   not followed, or the car would leap to its start;
///   the heading follows the road, or turns the short way round (350 to 10 is 20 degrees, not 340);
/// - a fix arriving more than `snapGap` after the previous one (background, tunnel, lost stream)
///   restarts the timeline: the car jumps to it without animating across the city;
/// - a fix arriving after the car came to rest on the previous one (a gap longer than `renderDelay`,
///   shorter than `snapGap`) is driven to from where the car rests, starting when it is added; fixes that
///   reach the screen late (a stalled stream delivering several at once), or reached the server a moment apart
///   though taken seconds apart, are driven through a little faster than they were driven, never leapt over;
/// - the car never goes past the newest fix: when fixes stop it stays still (no extrapolation).
///
/// All times are on the server's clock (`ServerClock.serverNow`).
public struct Glide: Sendable, Hashable {
    /// The tunables.
    public struct Configuration: Sendable, Hashable {
        /// How far in the past to render; about one driver update interval.
        public var renderDelay: TimeInterval
        /// A gap between fixes longer than this is jumped, not animated.
        public var snapGap: TimeInterval
        /// Fixes kept; only the last two or three are ever needed, the rest absorbs bursts.
        public var capacity: Int

        /// Creates a configuration; the defaults suit 2-4 s updates.
        public init(renderDelay: TimeInterval = 3, snapGap: TimeInterval = 10, capacity: Int = 16) {
            self.renderDelay = renderDelay
            self.snapGap = snapGap
            self.capacity = max(2, capacity)
        }
    }

    /// Where to draw the car at one instant.
    public struct Marker: Sendable, Hashable {
        /// The car's position.
        public var coordinate: Coordinate
        /// The car's heading in degrees, 0 = north, in [0, 360).
        public var heading: Double
        /// True while the car moves between two fixes; false when it rests on one.
        public var isMoving: Bool
        /// The seq of the newest fix the marker has reached.
        public var seq: Int64

        /// Creates a marker.
        public init(coordinate: Coordinate, heading: Double, isMoving: Bool, seq: Int64) {
            self.coordinate = coordinate
            self.heading = heading
            self.isMoving = isMoving
            self.seq = seq
        }
    }

    private struct Fix: Sendable, Hashable {
        var location: DriverLocation
        /// The road from the previous fix to this one, when the server sent it.
        var roadPath: [Coordinate]?
        /// Where this fix sits on the timeline; never earlier than the previous fix's.
        var time: Date
    }

    /// The tunables in force.
    public var configuration: Configuration
    private var fixes: [Fix] = []

    /// Creates an empty glide.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// The seq of the newest fix taken.
    public var latestSeq: Int64? { fixes.last?.location.seq }

    /// Adds a fix; returns false (and changes nothing) when its seq is not newer than the newest taken.
    ///
    /// `roadPath` is the road between the previous fix and this one, endpoints included. `now` is the
    /// display's server time as the fix is added: when the marker already rests on the newest fix (the
    /// next one came later than the render delay), the way to the new fix starts from there and now,
    /// not from when the last fix arrived, or the marker would leap most of the way in one frame.
    @discardableResult
    public mutating func add(_ location: DriverLocation, roadPath: [Coordinate]? = nil, now: Date? = nil) -> Bool {
        if let last = fixes.last {
            guard location.seq > last.location.seq else { return false }
            if location.receivedAt.timeIntervalSince(last.time) > configuration.snapGap {
                fixes.removeAll()
            } else if let now {
                let resting = now.addingTimeInterval(-configuration.renderDelay)
                if resting > last.time { fixes[fixes.count - 1].time = resting }
            }
        }
        var time = location.receivedAt
        if let last = fixes.last {
            // Time must not run backwards, nor may the car leap: it drives to the new fix in no less than half the
            // time it took between the two (at most half the render delay), the later of the two receipts' gap
            // and the two fixes' taking, until the timeline is back on the receipts. It reached the screen late
            // (a stalled stream delivering at once, after the car came to rest, from a server node whose clock
            // is behind), or the server got two fixes a moment apart that were taken seconds apart (a waiting
            // driver's held fix, then the fix of the moment at an accept): 55 m in one frame before. A fix a
            // little late, less than the render delay, after the car came to rest is the same case: its receipt
            // lies just after the moment the car rests from, and it was driven to in a frame (75 m in chaos).
            let receipts = location.receivedAt.timeIntervalSince(last.location.receivedAt)
            // When the server said when each was taken; else the receipts are all there is to go by, and a fix
            // that is on time stays on its receipt.
            let taking =
                location.fixedAt.flatMap { now in last.location.fixedAt.map { now.timeIntervalSince($0) } } ?? 0
            let interval = max(0, receipts, taking)
            time = max(time, last.time.addingTimeInterval(min(interval, configuration.renderDelay) / 2))
        }
        var path = roadPath
        if let start = path?.first, let previous = fixes.last?.location.coordinate,
            start.distance(to: previous) > Self.pathJoinMeters
        {
            path = nil
        }
        fixes.append(Fix(location: location, roadPath: path, time: time))
        if fixes.count > configuration.capacity { fixes.removeFirst(fixes.count - configuration.capacity) }
        return true
    }

    /// How far from the previous fix a road path may start and still be followed: the server's paths start at
    /// the position it published before, to the centimetre; anything further is a path from another fix.
    public static let pathJoinMeters = 2.0

    /// Forgets every fix, as when the rider's screen closes.
    public mutating func reset() { fixes.removeAll() }

    /// The marker to draw at server time `now`, or nil before the first fix.
    public func marker(at now: Date) -> Marker? {
        guard let first = fixes.first, let last = fixes.last else { return nil }
        let renderTime = now.addingTimeInterval(-configuration.renderDelay)
        if renderTime <= first.time { return resting(on: first) }
        if renderTime >= last.time { return resting(on: last) }
        // Few fixes: a linear scan from the newest end finds the segment fastest.
        var index = fixes.count - 1
        while fixes[index - 1].time > renderTime { index -= 1 }
        let from = fixes[index - 1]
        let to = fixes[index]
        let span = to.time.timeIntervalSince(from.time)
        let fraction = span > 0 ? renderTime.timeIntervalSince(from.time) / span : 1
        if let path = to.roadPath, path.count >= 2, let point = path.point(atFraction: fraction) {
            return Marker(coordinate: point.coordinate, heading: point.bearing, isMoving: true, seq: from.location.seq)
        }
        return Marker(
            coordinate: from.location.coordinate.interpolated(to: to.location.coordinate, fraction: fraction),
            heading: Heading.interpolated(from: from.location.heading, to: to.location.heading, fraction: fraction),
            isMoving: true,
            seq: from.location.seq
        )
    }

    private func resting(on fix: Fix) -> Marker {
        Marker(
            coordinate: fix.location.coordinate,
            heading: Heading.normalized(fix.location.heading),
            isMoving: false,
            seq: fix.location.seq
        )
    }
}
