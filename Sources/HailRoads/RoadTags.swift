/// Interprets OSM tags for driving: which ways are roads, their direction and their speed.
public enum RoadTags {
    /// The attributes of a way a car may drive on, or nil when `highway` is missing or not drivable.
    public static func attributes(for tags: [String: String]) -> RoadAttributes? {
        guard let highway = tags["highway"], let roadClass = RoadClass(rawValue: highway) else { return nil }
        let junction = tags["junction"]
        let isRoundabout = junction == "roundabout" || junction == "circular"
        return RoadAttributes(
            roadClass: roadClass,
            speedKmh: tags["maxspeed"].flatMap(speedKmh(maxspeed:)) ?? roadClass.defaultSpeedKmh,
            direction: direction(oneway: tags["oneway"], roadClass: roadClass, isRoundabout: isRoundabout),
            isRoundabout: isRoundabout,
            isTunnel: isSet(tags["tunnel"]),
            isBridge: isSet(tags["bridge"]),
            name: tags["name"] ?? ""
        )
    }

    /// The direction from an `oneway` value; a missing or unknown value means two-way except where implied.
    ///
    /// Implied one-way: motorways, motorway links (as the OSM wiki and most routers treat them) and
    /// roundabouts. An explicit `oneway=no` wins over the implication. `reversible` and `alternating`
    /// (direction changes with time of day) count as two-way, since we have no schedule.
    public static func direction(oneway: String?, roadClass: RoadClass, isRoundabout: Bool) -> RoadDirection {
        switch oneway?.lowercased() {
        case "yes", "1", "true": return .forward
        case "-1", "reverse": return .backward
        case "no", "false", "0", "reversible", "alternating": return .both
        default:
            let implied = roadClass == .motorway || roadClass == .motorwayLink || isRoundabout
            return implied ? .forward : .both
        }
    }

    /// The speed in km/h a `maxspeed` value names, or nil when it names none we can use.
    ///
    /// Understands plain numbers (km/h), `mph`, `knots`, `km/h`/`kmh`/`kph`, `walk`, the French and
    /// generic zone codes (`FR:urban` 50, `FR:rural` 80, `FR:motorway` 130, `XX:zone30` 30,
    /// `XX:living_street` 10) and lists (`50;30`, the lowest wins). `none` and `signals` give nil.
    public static func speedKmh(maxspeed: String) -> Double? {
        let value = maxspeed.trimmingWhitespace().lowercased()
        if value.contains(";") {
            return value.split(separator: ";").compactMap { speedKmh(maxspeed: String($0)) }.min()
        }
        if value == "walk" { return 6 }
        if let colon = value.firstIndex(of: ":") {
            let zone = value[value.index(after: colon)...]
            switch zone {
            case "urban": return 50
            case "rural": return 80
            case "motorway": return 130
            case "trunk": return 110
            case "living_street": return 10
            default:
                if zone.hasPrefix("zone"), let number = Double(zone.dropFirst(4)) { return plausible(number) }
                return nil
            }
        }
        var number = Substring(value)
        var factor = 1.0
        for (unit, unitFactor) in [("mph", 1.609344), ("knots", 1.852), ("km/h", 1), ("kmh", 1), ("kph", 1)]
        where number.hasSuffix(unit) {
            number = number.dropLast(unit.count)
            factor = unitFactor
            break
        }
        guard let parsed = Double(String(number).trimmingWhitespace()) else { return nil }
        return plausible(parsed * factor)
    }

    private static func plausible(_ speed: Double) -> Double? {
        // A zero, negative or absurd posted speed is a tagging error: fall back to the class default.
        speed > 0 && speed <= 300 ? speed : nil
    }

    private static func isSet(_ value: String?) -> Bool {
        guard let value else { return false }
        return value != "no" && value != "false" && value != "0"
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
