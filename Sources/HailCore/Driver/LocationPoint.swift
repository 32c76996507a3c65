import Foundation

/// One GPS fix as the driver's phone reports it: `{"lat", "lng", "accuracy", "heading", "speed", "t"}`.
public struct LocationPoint: Codable, Sendable, Hashable {
    /// Latitude in degrees.
    public var lat: Double
    /// Longitude in degrees.
    public var lng: Double
    /// Horizontal accuracy radius in metres (smaller is better).
    public var accuracy: Double
    /// Direction of travel in degrees, 0 = north; negative when the phone does not know.
    public var heading: Double
    /// Speed over ground in metres per second; negative when unknown.
    public var speed: Double
    /// When the phone took the fix, on the phone's clock.
    public var t: Date

    /// Creates a fix.
    public init(lat: Double, lng: Double, accuracy: Double, heading: Double, speed: Double, t: Date) {
        self.lat = lat
        self.lng = lng
        self.accuracy = accuracy
        self.heading = heading
        self.speed = speed
        self.t = t
    }

    /// The fix's position.
    public var coordinate: Coordinate { Coordinate(lat: lat, lng: lng) }
}
