import Foundation
import HailCore
import Testing

@testable import HailScale

@Suite("The compact text of a driver's filter and position in Redis")
struct IngestStateTextTests {
    static let fix = LocationPoint(
        lat: 43.739_612_345_678_9, lng: 7.427_612_3, accuracy: 4.5, heading: 271.25, speed: 13.9,
        t: Date(timeIntervalSince1970: 1_796_220_000.123_456))

    @Test func aFilterWithAReferenceFixComesBackExactlyAndJudgesTheSame() throws {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix)
        var backwards = Self.fix
        backwards.t = Self.fix.t - 1
        _ = filter.evaluate(backwards)
        let text = IngestStateText.filter(filter)
        #expect(
            text.hasPrefix("f2:4045deab9e0a3451,401db5dfffaf7828,4012000000000000,4070f40000000000,402bcccccccccccd,"))
        #expect(text.hasSuffix(",1,0,0,1,0"))
        let back = try IngestStateText.filter(from: text)
        #expect(back == filter)
        #expect(back.lastAccepted?.t == Self.fix.t)
    }

    @Test func aFilterWithNoFixYetKeepsItsCounts() throws {
        var counts = LocationFilter.Counts()
        counts.poorAccuracy = 3
        let filter = LocationFilter(lastAccepted: nil, counts: counts)
        #expect(IngestStateText.filter(filter) == "f2:,,,,,,0,0,3,0,0")
        #expect(try IngestStateText.filter(from: "f2:,,,,,,0,0,3,0,0") == filter)
    }

    @Test func aPositionComesBackExactly() throws {
        var position = DriverLocation(
            coordinate: Coordinate(lat: 43.7401, lng: 7.4281), heading: 90, seq: 9_007_199_254_740_993,
            receivedAt: Date(timeIntervalSince1970: 1_796_220_001.5))
        // Issue 14: `p3:` carries when the fix was taken after the time received (empty when unknown).
        let text = IngestStateText.position(position)
        #expect(text.hasPrefix("p3:4045debb98c7e282,401db65fd8adab9f,4056800000000000,9007199254740993,"))
        #expect(text.utf8.count == "p3:".utf8.count + 4 * 17 + "9007199254740993".utf8.count + 1)
        #expect(try IngestStateText.position(from: text) == position)
        position.fixedAt = Date(timeIntervalSince1970: 1_796_220_000.25)
        let withFixTime = IngestStateText.position(position)
        #expect(withFixTime.utf8.count == text.utf8.count + 16)
        #expect(try IngestStateText.position(from: withFixTime) == position)
    }

    @Test func aPositionWrittenBeforeTheFixTimeStillReads() throws {
        let position = try IngestStateText.position(
            from: "p2:4045debb98c7e282,401db65fd8adab9f,4056800000000000,12,41c849f4e0c00000")
        #expect(position.seq == 12)
        #expect(position.heading == 90)
        #expect(position.fixedAt == nil)
        #expect(position.ageOrigin == position.receivedAt)
    }

    @Test func stateWrittenInDecimalBeforeStillReads() throws {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix)
        let referenceSeconds = Self.fix.t.timeIntervalSinceReferenceDate.description
        let decimalFilter = "f1:43.7396123456789,7.4276123,4.5,271.25,13.9,\(referenceSeconds),1,0,0,0,0"
        #expect(try IngestStateText.filter(from: decimalFilter) == filter)
        let position = try IngestStateText.position(from: "p1:43.7401,7.4281,90.0,12,815000001.5")
        #expect(position.coordinate == Coordinate(lat: 43.7401, lng: 7.4281))
        #expect(position.heading == 90)
        #expect(position.seq == 12)
        #expect(position.receivedAt == Date(timeIntervalSinceReferenceDate: 815_000_001.5))
    }

    @Test func stateWrittenAsJSONBeforeStillReads() throws {
        var filter = LocationFilter()
        _ = filter.evaluate(Self.fix)
        let position = DriverLocation(
            coordinate: Coordinate(lat: 43.74, lng: 7.43), heading: 0, seq: 4, receivedAt: Self.fix.t)
        let filterJSON = String(decoding: try JSONEncoder().encode(filter), as: UTF8.self)
        let positionJSON = String(decoding: try JSONEncoder().encode(position), as: UTF8.self)
        #expect(try IngestStateText.filter(from: filterJSON) == filter)
        #expect(try IngestStateText.position(from: positionJSON) == position)
    }

    @Test func damagedTextIsAnErrorNamingIt() {
        #expect(throws: RedisError.self) { try IngestStateText.filter(from: "f1:1,2,3") }
        #expect(throws: RedisError.self) { try IngestStateText.filter(from: "f2:1,2,3") }
        // A hex field that is not 16 digits long is damage, not a shorter number.
        #expect(throws: RedisError.self) {
            try IngestStateText.position(
                from: "p2:4045debb98c7e28,401db65fd8adab9f,4056800000000000,1,4056800000000000")
        }
        #expect(throws: RedisError.self) { try IngestStateText.position(from: "p1:a,b,c,d,e") }
        #expect(throws: RedisError.self) { try IngestStateText.position(from: "p1:1,2,3,4.5,6") }
    }
}
