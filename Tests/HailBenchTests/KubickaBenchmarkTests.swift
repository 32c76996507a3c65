import Foundation
import HailBench
import HailTesting
import Testing

/// `hail bench match`'s reading and scoring, on a manual clock that never moves: timing is never tested.
@Suite("KubickaBenchmark")
struct KubickaBenchmarkTests {
    /// A street of four nodes 0.001 degrees of longitude apart on the equator (111 m), both ways: arcs 0-2 east,
    /// 3-5 west.
    static let nodes = "0.000\t0.0\n0.001\t0.0\n0.002\t0.0\n0.003\t0.0\n"
    static let arcs = "0\t1\n1\t2\n2\t3\n1\t0\n2\t1\n3\t2\n"

    @Test("A drive east along the street is matched to its three arcs east: no error at any rate")
    func straightDrive() throws {
        let fixes = (0...30).map { "\(0.0001 * Double($0))\t0.00002\t\(Double($0))" }.joined(separator: "\n")
        let track = try KubickaTrack(name: "east", nodes: Self.nodes, arcs: Self.arcs, track: fixes, route: "0\n1\n2\n")
        #expect(track.fixes.count == 31)
        #expect(track.edgeOfArc.count == 6)
        let result = KubickaBenchmark.run(tracks: [track], clock: ManualClock())
        #expect(result.scores.map(\.fixes) == [31, 7, 3, 2])
        for score in result.scores {
            #expect(score.routeError == 0)
            #expect(Int(score.truthMeters.rounded()) == 334)
        }
        #expect(result.summaries.map(\.meanRouteError) == [0, 0, 0, 0])
        #expect(result.fixesPerSecond == 0)
    }

    @Test("A match onto the wrong way counts its length as added and the truth's as missed")
    func wrongWay() throws {
        let fixes = (0...30).map { "\(0.0001 * Double($0))\t0.00002\t\(Double($0))" }.joined(separator: "\n")
        // The truth says the car drove west; the fixes run east.
        let track = try KubickaTrack(name: "west", nodes: Self.nodes, arcs: Self.arcs, track: fixes, route: "3\n4\n5\n")
        let score = try #require(KubickaBenchmark.run(tracks: [track], strides: [1], clock: ManualClock()).scores.first)
        #expect(Int(score.missedMeters.rounded()) == 334)
        #expect(Int(score.addedMeters.rounded()) == 334)
        #expect(score.routeError == 2)
        #expect(score.recovered == 0)
        #expect(score.precision == 0)
    }

    @Test("A track naming a node the map lacks is refused, naming the file and line")
    func badArc() {
        #expect(throws: BenchError.self) {
            try KubickaTrack(name: "bad", nodes: Self.nodes, arcs: "0\t1\n1\t9\n", track: "0\t0\t0\n", route: "0\n")
        }
        do {
            _ = try KubickaTrack(name: "bad", nodes: Self.nodes, arcs: "0\t1\n1\t9\n", track: "0\t0\t0\n", route: "0\n")
        } catch {
            #expect(error.description == "bad.arcs line 2: no node 1.0 or 9.0")
        }
    }

    @Test(
        "hail bench match on the shared track 00000022: the same counts every run",
        .enabled(
            if: SharedData.file("traces/kubicka-open-data/00000022/00000022.track") != nil,
            "needs ../shared/data/traces/kubicka-open-data/00000022"))
    func sharedTrack() throws {
        let folder = try #require(SharedData.file("traces/kubicka-open-data/00000022"))
        let track = try KubickaTrack.read(folder: folder)
        #expect(track.fixes.count == 474)
        #expect(track.route.count == 376)
        let result = KubickaBenchmark.run(tracks: [track], clock: ManualClock())
        #expect(result.scores.map(\.fixes) == [474, 96, 33, 17])
        #expect(result.scores.map { Int($0.truthMeters.rounded()) } == [14_995, 14_995, 14_995, 14_995])
        // Every fix and every 5th: the whole route. Every 15th (45 s apart) passes by a loop the car drove out and
        // back at a road's end; every 30th (90 s, 900 m apart) takes shorter roads than the driver did.
        #expect(result.scores.map { Int($0.missedMeters.rounded()) } == [0, 0, 424, 2_686])
        #expect(result.scores.map { Int($0.addedMeters.rounded()) } == [0, 0, 67, 1_245])
        #expect(result.scores.map(\.breaks) == [0, 0, 0, 0])
        #expect(result.summaries.map(\.tracks) == [1, 1, 1, 1])
    }
}
