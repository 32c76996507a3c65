import Foundation
import HailCore
import Testing

@Suite("Glide")
struct GlideTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func fix(_ seq: Int64, lat: Double, lng: Double, heading: Double = 0, at seconds: Double) -> DriverLocation {
        DriverLocation(
            coordinate: Coordinate(lat: lat, lng: lng), heading: heading, seq: seq,
            receivedAt: t0.addingTimeInterval(seconds))
    }

    /// The design's worked check: the glide midpoint between (0,0) and (10,4) is (5,2).
    @Test func theDesignDocumentsWorkedCheck() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(Self.fix(2, lat: 10, lng: 4, at: 3))
        let marker = try #require(glide.marker(at: Self.t0.addingTimeInterval(4.5)))
        #expect(marker.coordinate == Coordinate(lat: 5, lng: 2))
        #expect(marker.isMoving)
    }

    @Test func rendersOneIntervalInThePast() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(Self.fix(2, lat: 10, lng: 4, at: 3))
        // When the second fix arrives the car is still on the first, with three seconds to reach it.
        let atArrival = try #require(glide.marker(at: Self.t0.addingTimeInterval(3)))
        #expect(atArrival.coordinate == Coordinate(lat: 0, lng: 0))
        #expect(!atArrival.isMoving)
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(6))).coordinate.lat == 10)
    }

    @Test func aFixAfterTheCarCameToRestIsDrivenToFromWhereItRests() throws {
        // The car rests on the first fix from 3 s on; the next comes 8 s after it (under the 10 s snap
        // gap) and is added half a second after its arrival at the server.
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(Self.fix(2, lat: 10, lng: 0, at: 8), now: Self.t0.addingTimeInterval(8.5))
        // No leap: still where it rested, then half way when half of the 2.5 s left has passed.
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(8.5))).coordinate.lat == 0)
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(9.75))).coordinate.lat == 5)
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(11))).coordinate.lat == 10)
        // Without the display's time the way is timed from the first fix's arrival: 55 % of it at once.
        var unanchored = Glide(configuration: .init(renderDelay: 3))
        unanchored.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        unanchored.add(Self.fix(2, lat: 10, lng: 0, at: 8))
        let leap = try #require(unanchored.marker(at: Self.t0.addingTimeInterval(8.5))).coordinate.lat
        #expect(abs(leap - 6.875) < 1e-9)
    }

    @Test func fixesAStalledStreamDeliversAtOnceAreDrivenThroughNotLeaptOver() throws {
        // Fixes every 3 s; the stream stalls after the first and delivers the next three together at 9.5 s,
        // when the car has rested on the first for 6.5 s (under the 10 s snap gap from it).
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        let delivered = Self.t0.addingTimeInterval(9.5)
        for (seq, lat) in [(2, 10.0), (3, 20), (4, 30)] {
            glide.add(Self.fix(Int64(seq), lat: lat, lng: 0, at: Double(seq - 1) * 3), now: delivered)
        }
        // From where it rests, through each fix in turn: 1.5 s (half a fix's interval) each.
        var lats: [Double] = []
        for tenth in 0...60 {
            lats.append(try #require(glide.marker(at: delivered.addingTimeInterval(Double(tenth) / 10))).coordinate.lat)
        }
        #expect(lats.first == 0)
        #expect(lats[15] == 10)
        #expect(lats[30] == 20)
        #expect(lats[45] == 30)
        #expect(lats.last == 30)
        let steps = zip(lats, lats.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 >= -1e-4 && $0 <= 10.0 / 15 + 1e-4 })
        // The next fix, due at 12 s, is driven to in half its interval from where the timeline stands (11 s), not
        // in the 1 s left to its receipt; the one after is back on the receipts.
        glide.add(Self.fix(5, lat: 40, lng: 0, at: 12), now: Self.t0.addingTimeInterval(12.1))
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(14.75))).coordinate.lat == 35)
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(15.5))).coordinate.lat == 40)
        glide.add(Self.fix(6, lat: 50, lng: 0, at: 15), now: Self.t0.addingTimeInterval(15.1))
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(18))).coordinate.lat == 50)
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(16.75))).coordinate.lat == 45)
    }

    /// Issue 14, sixth pass: in chaos a rider's stream delivered a fix 9 s after the one the car rested on, 2.9 s
    /// late; the car rested from 8.9 s on the timeline and the fix sat at 9 s, so it crossed 75 m in one frame.
    @Test func aFixALittleLateAfterTheCarCameToRestIsDrivenToNotLeapt() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        let delivered = Self.t0.addingTimeInterval(11.9)
        glide.add(Self.fix(2, lat: 10, lng: 0, at: 9), now: delivered)
        // From where it rests, over half the render delay (1.5 s), in even steps.
        var lats: [Double] = []
        for tenth in 0...20 {
            lats.append(try #require(glide.marker(at: delivered.addingTimeInterval(Double(tenth) / 10))).coordinate.lat)
        }
        #expect(lats.first == 0)
        #expect(abs(lats[5] - 10.0 / 3) < 1e-6)
        #expect(lats[15] == 10)
        #expect(lats.last == 10)
        let steps = zip(lats, lats.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 >= -1e-6 && $0 <= 10.0 / 15 + 1e-6 }, "\(steps)")
        // The next fix, on time, is back on its receipt.
        glide.add(Self.fix(3, lat: 20, lng: 0, at: 12), now: Self.t0.addingTimeInterval(12.1))
        let onTheWay = try #require(glide.marker(at: Self.t0.addingTimeInterval(14.2))).coordinate.lat
        #expect(abs(onTheWay - 15) < 1e-6)
        #expect(try #require(glide.marker(at: Self.t0.addingTimeInterval(15))).coordinate.lat == 20)
    }

    /// Issue 14, fourth pass: at an accept, a waiting driver's held fix and the fix of the moment, taken 10 s and
    /// 55 m apart, reached the server 0.3 s apart, and the car crossed the 55 m in the next frame or two.
    @Test func fixesTakenSecondsApartThatArriveAMomentApartAreDrivenNotLeapt() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        var held = Self.fix(1, lat: 0, lng: 0, at: 0)
        held.fixedAt = Self.t0.addingTimeInterval(-9.8)
        var now = Self.fix(2, lat: 10, lng: 0, at: 0.3)
        now.fixedAt = Self.t0.addingTimeInterval(0.2)
        glide.add(held)
        glide.add(now, now: Self.t0.addingTimeInterval(0.5))
        // Half the render delay (the fixes were 10 s apart), not the 0.3 s between their receipts.
        var lats: [Double] = []
        for tenth in 30...50 {
            lats.append(try #require(glide.marker(at: Self.t0.addingTimeInterval(Double(tenth) / 10))).coordinate.lat)
        }
        #expect(lats.first == 0)
        #expect(lats[15] == 10)
        let steps = zip(lats, lats.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 >= -1e-6 && $0 <= 10.0 / 15 + 1e-6 }, "\(steps)")
    }

    @Test func neverGoesPastTheNewestFixNorBackwards() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(Self.fix(2, lat: 10, lng: 4, at: 3))
        glide.add(Self.fix(3, lat: 12, lng: 5, at: 6))
        var previous = -1.0
        for tenth in 0...300 {
            let marker = try #require(glide.marker(at: Self.t0.addingTimeInterval(Double(tenth) / 10)))
            #expect(marker.coordinate.lat <= 12)
            #expect(marker.coordinate.lat >= previous)
            previous = marker.coordinate.lat
        }
        let resting = try #require(glide.marker(at: Self.t0.addingTimeInterval(60)))
        #expect(resting == Glide.Marker(coordinate: Coordinate(lat: 12, lng: 5), heading: 0, isMoving: false, seq: 3))
    }

    @Test func headingTurnsTheShortWayRound() throws {
        var glide = Glide(configuration: .init(renderDelay: 2))
        glide.add(Self.fix(1, lat: 0, lng: 0, heading: 350, at: 0))
        glide.add(Self.fix(2, lat: 0, lng: 0.001, heading: 10, at: 2))
        var headings: [Double] = []
        for tenth in 20...40 {
            headings.append(try #require(glide.marker(at: Self.t0.addingTimeInterval(Double(tenth) / 10))).heading)
        }
        #expect(headings.first == 350)
        #expect(headings[10] == 0)
        #expect(headings.last == 10)
        let turned = zip(headings, headings.dropFirst()).map { abs(Heading.shortestTurn(from: $0, to: $1)) }
            .reduce(0, +)
        #expect(abs(turned - 20) < 1e-9)
    }

    @Test func aGapOverTenSecondsJumpsWithoutAnimating() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(Self.fix(2, lat: 1, lng: 1, at: 10.001))
        let marker = try #require(glide.marker(at: Self.t0.addingTimeInterval(10.001)))
        #expect(marker == Glide.Marker(coordinate: Coordinate(lat: 1, lng: 1), heading: 0, isMoving: false, seq: 2))
    }

    @Test func aGapOfExactlyTenSecondsStillGlides() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(Self.fix(2, lat: 1, lng: 1, at: 10))
        let marker = try #require(glide.marker(at: Self.t0.addingTimeInterval(10)))
        #expect(marker.coordinate == Coordinate(lat: 0.7, lng: 0.7))
        #expect(marker.isMoving)
    }

    @Test func followsTheRoadPathBetweenFixes() throws {
        var glide = Glide(configuration: .init(renderDelay: 3))
        let corner = Coordinate(lat: 0.001, lng: 0)
        glide.add(Self.fix(1, lat: 0, lng: 0, at: 0))
        glide.add(
            Self.fix(2, lat: 0.001, lng: 0.001, at: 3),
            roadPath: [
                Coordinate(lat: 0, lng: 0), corner,
                Coordinate(lat: 0.001, lng: 0.001),
            ])
        let halfway = try #require(glide.marker(at: Self.t0.addingTimeInterval(4.5)))
        // Half the road's length is the corner, not the middle of the diagonal through the block.
        #expect(halfway.coordinate.distance(to: corner) < 0.5)
        let later = try #require(glide.marker(at: Self.t0.addingTimeInterval(5.25)))
        #expect(abs(later.heading - 90) < 0.01)
    }

    @Test func olderFixesAreRefused() {
        var glide = Glide()
        let taken = [
            glide.add(Self.fix(5, lat: 0, lng: 0, at: 0)), glide.add(Self.fix(4, lat: 1, lng: 1, at: 1)),
            glide.add(Self.fix(5, lat: 1, lng: 1, at: 1)),
        ]
        #expect(taken == [true, false, false])
        #expect(glide.latestSeq == 5)
        #expect(Glide().marker(at: Self.t0) == nil)
    }
}
