import Foundation
import HailTesting
import Testing

@testable import HailNet

/// The keep-alive stall's regression tests: Nagle off on both ends of HailNet's connections, a small response in one
/// write, and a kept-alive client's requests on one connection. No timing: what the 40 ms came from is asserted.
@Suite struct KeepAliveTests {
    @Test func acceptedSocketHasNagleOffAndASmallResponseLeavesInOneWrite() async throws {
        let (server, port) = try makeServer()
        let before = server.metrics.snapshot()
        let (response, noDelay) = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try socket.readResponse()
            let accepted = LoopbackSocket.find(localPort: port, peerPort: LoopbackSocket.localPort(of: socket.fd))
            return (response, accepted.flatMap(TCPNoDelay.isEnabled(on:)))
        }
        // A hop onto every loop: the callbacks that wrote the answer have returned, their counts are in.
        _ = await server.trackedSessions
        let after = server.metrics.snapshot()
        #expect(noDelay == true)
        #expect(response.status == 404)
        #expect(response.text == "{\"error\":{\"code\":\"not_found\",\"message\":\"no such thing\"}}")
        #expect(after.httpRequests - before.httpRequests == 1)
        #expect(after.httpResponseWrites - before.httpResponseWrites == 1)
        await server.shutdown()
    }

    @Test func aLargeResponseTakesOneWriteForTheHeadAndFirstPieceAndOnePerFurtherPiece() async throws {
        let (server, port) = try makeServer()
        let before = server.metrics.snapshot()
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("GET /big?size=200000 HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        _ = await server.trackedSessions
        let after = server.metrics.snapshot()
        #expect(response.body == (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        // 200,000 bytes: 65,536 with the head, then 65,536, 65,536 and 3,392.
        #expect(after.httpResponseWrites - before.httpResponseWrites == 4)
        #expect(after.bytesSent - before.bytesSent == 200_000)
        await server.shutdown()
    }

    @Test func keptAliveClientsThreeRequestsAreServedOnOneConnection() async throws {
        let (server, port) = try makeServer()
        let before = server.metrics.snapshot()
        let responses = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            return try ["/first", "/second", "/third"].map { path in
                try socket.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                return try socket.readResponse()
            }
        }
        _ = await server.trackedSessions
        let after = server.metrics.snapshot()
        #expect(responses.map(\.status) == [200, 200, 200])
        #expect(
            responses.map { $0.text.split(separator: "\n").first { $0.hasPrefix("path=") } }
                == ["path=/first", "path=/second", "path=/third"])
        #expect(responses.map { $0.headers["connection"] } == [nil, nil, nil])
        #expect(after.acceptedConnections - before.acceptedConnections == 1)
        #expect(after.httpRequests - before.httpRequests == 3)
        #expect(after.httpResponseWrites - before.httpResponseWrites == 3)
        await server.shutdown()
    }

    /// The client engine connects through lws, which turns Nagle off on the sockets it opens.
    @Test func clientEngineSocketHasNagleOff() async throws {
        let (server, port) = try makeServer()
        let client = try WebSocketClient()
        try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/echo")
            var inbound = connection.messages.makeAsyncIterator()
            connection.send(text: "hello")
            #expect(await inbound.next() == .text("hello"))
            let noDelay = try await onItsOwnThread {
                LoopbackSocket.find(peerPort: port).flatMap(TCPNoDelay.isEnabled(on:))
            }
            #expect(noDelay == true)
            connection.close(code: 1000, reason: "")
            _ = await connection.closed()
        }
        await client.shutdown()
        await server.shutdown()
    }
}

/// Finds a TCP socket of this process by its ports (the server under test runs in this process, so the socket it
/// accepted is one of this process's descriptors, and its options can be read as the server sees them).
enum LoopbackSocket {
    /// The descriptor whose local port is `localPort` (any when nil) and whose peer's port is `peerPort`.
    static func find(localPort: Int? = nil, peerPort: Int) -> Int32? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in names.compactMap(Int32.init).sorted() {
            guard port(of: descriptor, peer: true) == peerPort else { continue }
            if let localPort, port(of: descriptor, peer: false) != localPort { continue }
            return descriptor
        }
        return nil
    }

    /// The local port `descriptor` is bound to (0 when it is not an IPv4 socket).
    static func localPort(of descriptor: Int32) -> Int { port(of: descriptor, peer: false) ?? 0 }

    private static func port(of descriptor: Int32, peer: Bool) -> Int? {
        var address = sockaddr_in()
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(descriptor, $0, &size) : getsockname(descriptor, $0, &size)
            }
        }
        guard result == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
