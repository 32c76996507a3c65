import Foundation
import HailCore
import HailProtocol
import HailTesting
import Testing

@Suite struct DriverMovedWireText {
    @Test func writesTheFixtureByteForByte() throws {
        let moved = DriverMoved(
            location: DriverLocation(
                coordinate: Coordinate(lat: 43.738, lng: 7.426), heading: 90, seq: 42, receivedAt: Fixtures.receivedAt),
            etaSeconds: 240,
            path: [Fixtures.casino, Coordinate(lat: 43.7388, lng: 7.4268), Coordinate(lat: 43.738, lng: 7.426)])
        #expect(
            try moved.riderFrameText()
                == #"{"coordinate":{"lat":43.738,"lng":7.426},"etaSeconds":240,"heading":90,"path":"o{}iGouil@~C~C~C~C","#
                + #""receivedAt":"2026-12-02T13:54:23.123Z","seq":42,"type":"driverMoved"}"#)
    }

    @Test func writesWhenTheFixWasTakenAndWhereTheETARunsToInKeyOrder() throws {
        let moved = DriverMoved(
            location: DriverLocation(
                coordinate: Coordinate(lat: 43.738, lng: 7.426), heading: 90, seq: 42, receivedAt: Fixtures.receivedAt,
                fixedAt: Fixtures.receivedAt.addingTimeInterval(-1.25)),
            etaSeconds: 240, etaTarget: .pickup)
        let text = try moved.riderFrameText()
        #expect(
            text
                == #"{"coordinate":{"lat":43.738,"lng":7.426},"etaSeconds":240,"etaTarget":"pickup","#
                + #""fixedAt":"2026-12-02T13:54:21.873Z","heading":90,"#
                + #""receivedAt":"2026-12-02T13:54:23.123Z","seq":42,"type":"driverMoved"}"#)
        #expect(text == (try HailJSON.encodeString(RiderServerFrame.driverMoved(moved))))
        let decoded = try WireDecoder.decode(RiderServerFrame.self, from: Data(text.utf8))
        #expect(decoded == .driverMoved(moved))
        #expect(moved.location.ageOrigin == Fixtures.receivedAt.addingTimeInterval(-1.25))
        // No ETA, no target: a target says where an ETA runs to.
        #expect(DriverMoved(location: moved.location, etaTarget: .dropoff).etaTarget == nil)
    }

    @Test func leavesOutWhatIsMissing() throws {
        let bare = DriverMoved(seq: 1, coordinate: Fixtures.casino, heading: 0, receivedAt: Fixtures.receivedAt)
        #expect(
            try bare.riderFrameText()
                == #"{"coordinate":{"lat":43.7396,"lng":7.4276},"heading":0,"#
                + #""receivedAt":"2026-12-02T13:54:23.123Z","seq":1,"type":"driverMoved"}"#)
    }

    @Test func escapesABackslashInThePathAsTheEncoderDoes() throws {
        let moved = DriverMoved(
            seq: 7, coordinate: Fixtures.casino, heading: 12.5, receivedAt: Fixtures.receivedAt, path: #"a\b"#)
        #expect(try moved.riderFrameText().contains(#""path":"a\\b""#))
        #expect(try moved.riderFrameText() == HailJSON.encodeString(RiderServerFrame.driverMoved(moved)))
    }

    @Test func refusesANonFiniteNumberLikeTheEncoder() {
        let moved = DriverMoved(seq: 7, coordinate: Fixtures.casino, heading: .nan, receivedAt: Fixtures.receivedAt)
        #expect(throws: EncodingError.self) { try moved.riderFrameText() }
    }

    /// Seeded values across the ranges the server sends (and the awkward corners of number formatting: whole
    /// degrees, negative zero, tiny and exponent-notation values) give the encoder's exact bytes.
    @Test func matchesTheEncoderOnTwentyThousandSeededFrames() throws {
        var random = SplitMix64(seed: 0x5EED_0013)
        let corners: [Double] = [0, -0.0, 1, -1, 90, -90, 180, 1e-7, -3.5e-9, 0.1, 123.456789012345, 1e16, 43.7396]
        var mismatches: [String] = []
        for index in 0..<20_000 {
            func degrees(_ limit: Double) -> Double {
                switch index % 4 {
                case 0: corners[Int.random(in: 0..<corners.count, using: &random)]
                case 1: Double(Int.random(in: -Int(limit)...Int(limit), using: &random))
                default: Double.random(in: -limit...limit, using: &random)
                }
            }
            let coordinate = Coordinate(lat: degrees(90), lng: degrees(180))
            let path: [Coordinate]? =
                Bool.random(using: &random)
                ? (0..<Int.random(in: 2...6, using: &random)).map { _ in
                    Coordinate(
                        lat: 43.7 + Double.random(in: 0...0.05, using: &random),
                        lng: 7.4 + Double.random(in: 0...0.05, using: &random))
                } : nil
            let moved = DriverMoved(
                location: DriverLocation(
                    coordinate: coordinate, heading: degrees(360),
                    seq: Int64.random(in: 1...Int64.max, using: &random),
                    receivedAt: Date(
                        timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800_000, using: &random)) / 1000
                            + Double.random(in: 0..<0.001, using: &random)),
                    fixedAt: Bool.random(using: &random)
                        ? Date(
                            timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800_000, using: &random))
                                / 1000)
                        : nil),
                etaSeconds: Bool.random(using: &random) ? Int.random(in: 0...7_200, using: &random) : nil,
                etaTarget: EtaTarget.allCases.randomElement(using: &random), path: path)
            let expected = try HailJSON.encodeString(RiderServerFrame.driverMoved(moved))
            let written = try moved.riderFrameText()
            if written != expected, mismatches.count < 5 { mismatches.append("\(written)\n\(expected)") }
        }
        #expect(mismatches == [])
    }
}
