import Foundation

extension DriverMoved {
    /// The `driverMoved` rider frame's wire JSON (`RiderServerFrame.driverMoved`), the same bytes
    /// `HailJSON.encodeString` writes, written by hand.
    ///
    /// The server writes one for every position a rider is shown, on the loop thread that read the driver's batch;
    /// through `JSONEncoder` that was 6% of the server's CPU in a saturating ingest. Keys come in sorted order and
    /// numbers as `JSONEncoder` writes them (Swift's shortest round-trip `description`, a trailing `.0` dropped).
    /// Anything this does not write by hand (a non-finite number, a date outside RFC 3339's years, a path with a
    /// character JSON would escape) goes through `HailJSON`, so the answer never differs.
    public func riderFrameText() throws(EncodingError) -> String {
        guard coordinate.lat.isFinite, coordinate.lng.isFinite, heading.isFinite,
            let received = try? WireDate.format(receivedAt), path?.utf8.allSatisfy(Self.isPlain) ?? true
        else { return try HailJSON.encodeString(RiderServerFrame.driverMoved(self)) }
        var fixed: String?
        if let fixedAt {
            guard let text = try? WireDate.format(fixedAt) else {
                return try HailJSON.encodeString(RiderServerFrame.driverMoved(self))
            }
            fixed = text
        }
        var text = #"{"coordinate":{"lat":"#
        text.reserveCapacity(200 + (path?.utf8.count ?? 0))
        text += Self.number(coordinate.lat)
        text += #","lng":"#
        text += Self.number(coordinate.lng)
        text += "},"
        if let etaSeconds {
            text += #""etaSeconds":"#
            text += String(etaSeconds)
            text += ","
        }
        if let etaTarget {
            text += #""etaTarget":""#
            text += etaTarget.rawValue
            text += #"","#
        }
        if let fixed {
            text += #""fixedAt":""#
            text += fixed
            text += #"","#
        }
        text += #""heading":"#
        text += Self.number(heading)
        if let path {
            text += #","path":""#
            text += path
            text += #"""#
        }
        text += #","receivedAt":""#
        text += received
        text += #"","seq":"#
        text += String(seq)
        text += #","type":"driverMoved"}"#
        return text
    }

    /// A finite number as `JSONEncoder` writes it.
    static func number(_ value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A byte JSON writes as itself inside a string: printable ASCII other than `"` and `\` (a polyline's alphabet,
    /// `?` to `~`, holds `\`, so a path with one goes through the encoder).
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
