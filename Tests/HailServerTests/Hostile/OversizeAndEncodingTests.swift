import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import Testing

/// Too much and malformed: bodies over the limit (413), WebSocket messages over it whole or in fragments
/// (1009), invalid UTF-8 in a JSON body (400) and in a text frame (1007). Each leaves the server as it was.
@Suite("Hostile: sizes and encodings", .serialized)
struct OversizeAndEncodingTests {
    static let limit = 4096

    static func start() async throws -> HostileServer {
        try await HostileServer.start {
            $0.maxBodyBytes = Self.limit
            $0.maxMessageBytes = Self.limit
        }
    }

    @Test func aBodyOverTheLimitIs413BeforeItIsRead() async throws {
        let server = try await Self.start()
        let status = #"{"online": true, "padding": ""# + String(repeating: "x", count: Self.limit) + #""}"#
        let refused = await server.call(
            "POST", "/v1/drivers/me/status", token: server.token(.driver, "big"), json: status)
        #expect(refused.status == 413)
        #expect(server.error(refused)?.code == .payloadTooLarge)
        #expect(server.error(refused)?.message == "request body exceeds 4096 bytes")
        #expect(await server.services.fleet.status(driverID: "big").online == false)
        await server.stop()
    }

    @Test func aChunkedBodyOverTheLimitIs413() async throws {
        let server = try await Self.start()
        let socket = try RawSocket(port: server.port)
        let chunk = String(repeating: "x", count: 3000)
        try socket.send(
            "POST /v1/drivers/me/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.token(.driver, "big"))\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "bb8\r\n\(chunk)\r\nbb8\r\n\(chunk)\r\n0\r\n\r\n")
        let response = try await onItsOwnThread { try socket.readResponse() }
        #expect(response.status == 413)
        #expect(response.text.contains(#""code":"payload_too_large""#))
        #expect(await server.services.fleet.status(driverID: "big").online == false)
        await server.stop()
    }

    @Test func aRequestHeadOver16KiBIsDroppedAndOthersAreServed() async throws {
        let server = try await Self.start()
        let socket = try RawSocket(port: server.port)
        try socket.send(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        #expect(try await onItsOwnThread { socket.readUntilClosed() })
        #expect(server.server.netMetrics.httpRequests == 0)
        #expect(await server.call("GET", "/healthz").status == 200)
        await server.stop()
    }

    @Test func aWebSocketMessageOverTheLimitIsClosedWith1009() async throws {
        let server = try await Self.start()
        let socket = try RawSocket(port: server.port)
        try socket.upgrade(path: "/v1/drivers/me/live?access_token=\(server.token(.driver, "big"))", port: server.port)
        _ = try await onItsOwnThread { try socket.readText(containing: #""type":"hello""#) }
        try socket.sendFrame(opcode: 1, payload: Array(repeating: UInt8(ascii: " "), count: Self.limit + 1))
        let close = try await onItsOwnThread { try socket.readClose() }
        #expect(close.code == 1009)
        #expect(close.reason == "message larger than 4096 bytes")
        await server.stop()
    }

    @Test func fragmentsThatTogetherPassTheLimitAreClosedWith1009() async throws {
        let server = try await Self.start()
        let socket = try RawSocket(port: server.port)
        try socket.upgrade(path: "/v1/drivers/me/live?access_token=\(server.token(.driver, "big"))", port: server.port)
        _ = try await onItsOwnThread { try socket.readText(containing: #""type":"hello""#) }
        let piece = Array(repeating: UInt8(ascii: " "), count: 1500)
        try socket.sendFrame(opcode: 1, payload: piece, final: false)
        try socket.sendFrame(opcode: 0, payload: piece, final: false)
        try socket.sendFrame(opcode: 0, payload: piece, final: true)
        let close = try await onItsOwnThread { try socket.readClose() }
        #expect(close.code == 1009)
        await server.stop()
    }

    @Test func fragmentsWithinTheLimitAreOneMessage() async throws {
        let server = try await Self.start()
        try await server.onlineDriver("fragmented", at: Coordinate(lat: 43.7400, lng: 7.4280))
        let socket = try RawSocket(port: server.port)
        try socket.upgrade(
            path: "/v1/drivers/me/live?access_token=\(server.token(.driver, "fragmented"))", port: server.port)
        _ = try await onItsOwnThread { try socket.readText(containing: #""type":"hello""#) }
        let point = LocationPoint(
            lat: 43.7401, lng: 7.4280, accuracy: 5, heading: 0, speed: 5, t: server.now.addingTimeInterval(2))
        let frame = Array(
            try HailJSON.encodeString(DriverClientFrame.location(LocationBatch(seq: 2, points: [point]))).utf8)
        let third = frame.count / 3
        try socket.sendFrame(opcode: 1, payload: Array(frame[..<third]), final: false)
        try socket.sendFrame(opcode: 0, payload: Array(frame[third..<(2 * third)]), final: false)
        try socket.sendFrame(opcode: 0, payload: Array(frame[(2 * third)...]), final: true)
        let ack = try await onItsOwnThread { try socket.readText(containing: #""type":"ack""#) }
        #expect(ack.contains(#""seq":2"#))
        #expect(await server.services.fleet.position(driverID: "fragmented")?.seq == 2)
        await server.stop()
    }

    @Test func invalidUTF8InAJSONBodyIs400() async throws {
        let server = try await Self.start()
        var body = Array(#"{"online": true, "name": "caf"#.utf8)
        body += [0xC3, 0x28]  // a two-byte lead followed by an ASCII byte: not UTF-8
        body += Array(#""}"#.utf8)
        let refused = await server.call(
            "POST", "/v1/drivers/me/status", token: server.token(.driver, "bytes"), body: Data(body),
            headers: ["Content-Type": "application/json"])
        #expect(refused.status == 400)
        #expect(server.error(refused)?.code == .invalidJSON)
        #expect(await server.services.fleet.status(driverID: "bytes").online == false)
        await server.stop()
    }

    @Test func invalidUTF8InATextFrameIsClosedWith1007AndNothingIsApplied() async throws {
        let server = try await Self.start()
        try await server.onlineDriver("bytes", at: Coordinate(lat: 43.7400, lng: 7.4280))
        let socket = try RawSocket(port: server.port)
        try socket.upgrade(
            path: "/v1/drivers/me/live?access_token=\(server.token(.driver, "bytes"))", port: server.port)
        _ = try await onItsOwnThread { try socket.readText(containing: #""type":"hello""#) }
        var payload = Array(#"{"type":"location","seq":2,"points":[],"x":""#.utf8)
        payload += [0xED, 0xA0, 0x80]  // an encoded UTF-16 surrogate: forbidden in UTF-8
        payload += Array(#""}"#.utf8)
        try socket.sendFrame(opcode: 1, payload: payload)
        let close = try await onItsOwnThread { try socket.readClose() }
        #expect(close.code == 1007)
        #expect(await server.services.fleet.position(driverID: "bytes")?.seq == 1)
        await server.stop()
    }
}
