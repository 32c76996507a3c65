import Foundation
import HailAppSeams
import HailCore
import HailProtocol
import Testing

@testable import HailClient

/// A newer server may send frames an app predates (the `tripAlert` frame, to every app shipped before it): the
/// app's stream skips each frame it cannot decode and goes on with the next, never closing or failing for one.
@Suite("The rider's stream and frames it does not know")
struct RiderStreamUnknownFrameTests {
    /// A transport whose one stream plays `texts` as the server's frames, then closes with 1000.
    struct ScriptedTransport: SocketTransport {
        let texts: [String]

        func open(_ url: String, headers: [(name: String, value: String)]) async throws(CallError)
            -> any SocketStream
        {
            ScriptedStream(texts: texts)
        }

        func shutdown() async {}
    }

    struct ScriptedStream: SocketStream {
        let texts: [String]
        var frames: AsyncStream<SocketFrame> {
            AsyncStream { continuation in
                for text in texts { continuation.yield(.text(text)) }
                continuation.finish()
            }
        }
        func send(_ frame: SocketFrame) -> Bool { true }
        func close(code: UInt16, reason: String) {}
        func closed() async -> SocketClose { SocketClose(code: 1000, reason: "") }
    }

    static let hello = #"{"serverTime":"2026-12-02T14:00:00.000Z","type":"hello"}"#
    static let alert =
        #"{"kind":"routeDeviation","raisedAt":"2026-12-02T14:02:24.000Z","since":"2026-12-02T14:02:12.000Z","type":"tripAlert"}"#
    static let trip =
        #"{"trip":{"dropoff":{"lat":43.7314,"lng":7.4197},"id":"t-1","pickup":{"lat":43.7396,"lng":7.4276},"productID":"economy","state":"onTrip","version":6},"type":"tripUpdated"}"#

    static func frames(_ texts: [String]) async throws -> [RiderServerFrame] {
        let channel = RiderLiveChannel(
            baseURL: try #require(URL(string: "http://127.0.0.1:8080")), token: "t",
            connector: SocketConnector(transport: ScriptedTransport(texts: texts)))
        var frames: [RiderServerFrame] = []
        for try await frame in try await channel.open(tripID: "t-1", after: nil) { frames.append(frame) }
        return frames
    }

    @Test func aFrameOfATypeTheAppDoesNotKnowIsSkippedAndTheStreamGoesOn() async throws {
        // What an app that predates `tripAlert` meets: a type outside its list, between two it knows.
        let newer = #"{"kind":"somethingLater","type":"tripNotice"}"#
        let frames = try await Self.frames([Self.hello, newer, Self.trip])
        #expect(frames.map(\.type) == ["hello", "tripUpdated"])
    }

    @Test func thisAppReadsTheTripAlertWithItsTimes() async throws {
        let frames = try await Self.frames([Self.hello, Self.alert, Self.trip])
        #expect(frames.map(\.type) == ["hello", "tripAlert", "tripUpdated"])
        guard case .tripAlert(let alert) = frames[1] else {
            Issue.record("no tripAlert")
            return
        }
        #expect(alert.kind == .routeDeviation)
        #expect(alert.raisedAt.timeIntervalSince(alert.since) == 12)
        #expect(alert.answer == nil)
    }
}
