import Foundation
import HailCore

/// The rider stream's position update: `{"type": "driverMoved", "seq", "coordinate", "heading",
/// "receivedAt", "fixedAt"?, "etaSeconds"?, "etaTarget"?, "path"?}`.
public struct DriverMoved: Sendable, Hashable {
    /// The driver's seq for this fix; the rider ignores anything not newer than what it shows.
    public var seq: Int64
    /// Where the driver is.
    public var coordinate: Coordinate
    /// Direction of travel in degrees, 0 = north.
    public var heading: Double
    /// When the server received the fix, in server time.
    public var receivedAt: Date
    /// When the phone took the fix, in server time, as the server estimates it (never after `receivedAt`):
    /// the pin's age is measured from here. Absent from servers before it; an app then ages from `receivedAt`.
    public var fixedAt: Date?
    /// The server's ETA in seconds from this position, when it has one.
    public var etaSeconds: Int?
    /// Where `etaSeconds` runs to; absent from servers before it.
    public var etaTarget: EtaTarget?
    /// The road from the previous published fix to this one, both ends included, as a Google
    /// encoded polyline at precision 5, so the car glides along the road instead of cutting corners.
    public var path: String?

    /// Creates an update with an already encoded path.
    public init(
        seq: Int64, coordinate: Coordinate, heading: Double, receivedAt: Date, fixedAt: Date? = nil,
        etaSeconds: Int? = nil, etaTarget: EtaTarget? = nil, path: String? = nil
    ) {
        self.seq = seq
        self.coordinate = coordinate
        self.heading = heading
        self.receivedAt = receivedAt
        self.fixedAt = fixedAt
        self.etaSeconds = etaSeconds
        self.etaTarget = etaTarget
        self.path = path
    }

    /// Creates an update from a published location, encoding the road path when there is one.
    public init(
        location: DriverLocation, etaSeconds: Int? = nil, etaTarget: EtaTarget? = nil, path: [Coordinate]? = nil
    ) {
        self.init(
            seq: location.seq, coordinate: location.coordinate, heading: location.heading,
            receivedAt: location.receivedAt, fixedAt: location.fixedAt, etaSeconds: etaSeconds,
            etaTarget: etaSeconds == nil ? nil : etaTarget, path: path.map { Polyline.encode($0) })
    }

    /// The position as HailCore's tracker and glide consume it.
    public var location: DriverLocation {
        DriverLocation(coordinate: coordinate, heading: heading, seq: seq, receivedAt: receivedAt, fixedAt: fixedAt)
    }

    /// The decoded road path, nil when the frame has none.
    public func pathCoordinates() throws(Polyline.DecodingError) -> [Coordinate]? {
        guard let path else { return nil }
        return try Polyline.decode(path)
    }

    init(from container: KeyedDecodingContainer<FrameKey>) throws {
        seq = try container.decode(Int64.self, forKey: .seq)
        coordinate = try container.decode(Coordinate.self, forKey: .coordinate)
        heading = try container.decode(Double.self, forKey: .heading)
        receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        fixedAt = try container.decodeIfPresent(Date.self, forKey: .fixedAt)
        etaSeconds = try container.decodeIfPresent(Int.self, forKey: .etaSeconds)
        etaTarget = try container.decodeIfPresent(EtaTarget.self, forKey: .etaTarget)
        path = try container.decodeIfPresent(String.self, forKey: .path)
    }

    func encode(into container: inout KeyedEncodingContainer<FrameKey>) throws {
        try container.encode(seq, forKey: .seq)
        try container.encode(coordinate, forKey: .coordinate)
        try container.encode(heading, forKey: .heading)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encodeIfPresent(fixedAt, forKey: .fixedAt)
        try container.encodeIfPresent(etaSeconds, forKey: .etaSeconds)
        try container.encodeIfPresent(etaTarget, forKey: .etaTarget)
        try container.encodeIfPresent(path, forKey: .path)
    }
}
