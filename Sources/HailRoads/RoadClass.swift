/// The OSM `highway` classes a car may drive on, with the speed assumed when a way has no usable `maxspeed`.
///
/// Default speeds (km/h), urban-leaning because the extracts we route on are cities:
///
/// | class | km/h | class | km/h |
/// |---|---|---|---|
/// | motorway | 90 | motorway_link | 50 |
/// | trunk | 80 | trunk_link | 50 |
/// | primary | 50 | primary_link | 40 |
/// | secondary | 50 | secondary_link | 40 |
/// | tertiary | 40 | tertiary_link | 30 |
/// | unclassified | 30 | residential | 30 |
/// | living_street | 10 | service | 15 |
public enum RoadClass: String, Sendable, Hashable, CaseIterable, Codable {
    /// `highway=motorway`.
    case motorway
    /// `highway=motorway_link`.
    case motorwayLink = "motorway_link"
    /// `highway=trunk`.
    case trunk
    /// `highway=trunk_link`.
    case trunkLink = "trunk_link"
    /// `highway=primary`.
    case primary
    /// `highway=primary_link`.
    case primaryLink = "primary_link"
    /// `highway=secondary`.
    case secondary
    /// `highway=secondary_link`.
    case secondaryLink = "secondary_link"
    /// `highway=tertiary`.
    case tertiary
    /// `highway=tertiary_link`.
    case tertiaryLink = "tertiary_link"
    /// `highway=unclassified`.
    case unclassified
    /// `highway=residential`.
    case residential
    /// `highway=living_street`.
    case livingStreet = "living_street"
    /// `highway=service`.
    case service

    /// The speed in km/h used when the way carries no usable `maxspeed` (the table above).
    public var defaultSpeedKmh: Double {
        switch self {
        case .motorway: 90
        case .trunk: 80
        case .primary, .secondary: 50
        case .motorwayLink, .trunkLink: 50
        case .primaryLink, .secondaryLink, .tertiary: 40
        case .tertiaryLink, .unclassified, .residential: 30
        case .service: 15
        case .livingStreet: 10
        }
    }
}
