import Foundation
import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// Echoes what it saw so tests can check method, path, query, headers and body.
@Sendable func echoHandler(_ request: HTTPRequest) async -> HTTPResponse {
    switch request.path {
    case "/missing":
        return .error(status: 404, code: "not_found", message: "no such thing")
    case "/big":
        let size = Int(request.queryValue("size") ?? "0") ?? 0
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/octet-stream"],
            body: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
    default:
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let text = [
            "method=\(request.method)", "path=\(request.path)", "query=\(query)",
            "auth=\(request.headers["AUTHORIZATION"] ?? "-")", "idem=\(request.headers["Idempotency-Key"] ?? "-")",
            "rid=\(request.requestID)", "remote=\(request.remoteAddress)",
            "body=\(String(decoding: request.body, as: UTF8.self))",
        ].joined(separator: "\n")
        return .text(text)
    }
}

func makeServer(_ configure: (inout NetServerConfiguration) -> Void = { _ in }) throws -> (NetServer, Int) {
    var configuration = NetServerConfiguration()
    configure(&configuration)
    let server = NetServer(configuration: configuration, http: echoHandler, webSocket: echoWebSocket)
    let port = try server.start()
    return (server, port)
}

@Suite struct HTTPServerTests {
    @Test func getWithQueryHeadersAndRequestID() async throws {
        let (server, port) = try makeServer()
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send(
                "GET /v1/drivers/nearby?lat=43.7&lng=7.42&name=a%20b%26c HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer abc\r\nIdempotency-Key: k-1\r\nX-Request-Id: req-42\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.headers["x-request-id"] == "req-42")
        let lines = Set(response.text.split(separator: "\n").map(String.init))
        #expect(lines.contains("method=GET"))
        #expect(lines.contains("path=/v1/drivers/nearby"))
        #expect(lines.contains("query=lat=43.7&lng=7.42&name=a b&c"))
        #expect(lines.contains("auth=Bearer abc"))
        #expect(lines.contains("idem=k-1"))
        #expect(lines.contains("rid=req-42"))
        #expect(lines.contains("remote=127.0.0.1"))
        await server.shutdown()
    }

    @Test func postBodyAndKeepAliveOnOneConnection() async throws {
        let (server, port) = try makeServer()
        let (first, second) = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            let body = "{\"pickup\":{\"lat\":1}}"
            try socket.send("POST /v1/trips HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let first = try socket.readResponse()
            try socket.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
            return (first, try socket.readResponse())
        }
        #expect(first.status == 200)
        #expect(first.text.contains("method=POST"))
        #expect(first.text.contains("body={\"pickup\":{\"lat\":1}}"))
        #expect(second.status == 200)
        #expect(second.text.contains("path=/second"))
        // A generated request id is present when the client sent none.
        #expect((second.headers["x-request-id"] ?? "").count == 16)
        await server.shutdown()
    }

    /// lws reports a body completion even for `POST` with `Content-Length: 0`; the handler must still run once.
    @Test func aBodilessPostIsHandledExactlyOnce() async throws {
        let calls = Mutex(0)
        let server = NetServer(http: { request in
            calls.withLock { $0 += 1 }
            if request.method == "POST" {
                // A handler slower than lws' body-completion callback, as a real one with storage is.
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { done.resume() }
                }
            }
            return .text("\(request.method) \(request.path)")
        })
        let port = try server.start()
        let (first, second) = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("POST /v1/trips/t/decline HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            let first = try socket.readResponse()
            try socket.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
            return (first, try socket.readResponse())
        }
        #expect(first.text == "POST /v1/trips/t/decline")
        #expect(second.text == "GET /after")
        #expect(calls.withLock { $0 } == 2)
        await server.shutdown()
    }

    @Test func handlerNotFoundCarriesJSONError() async throws {
        let (server, port) = try makeServer()
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 404)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.text == "{\"error\":{\"code\":\"not_found\",\"message\":\"no such thing\"}}")
        await server.shutdown()
    }

    @Test func tooLargeBodyIsRejectedWith413BeforeItIsRead() async throws {
        let (server, port) = try makeServer { $0.maxRequestBodyBytes = 1000 }
        let (response, closed) = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            // Announce 10 MB but send none of it: the answer must not wait for the body.
            try socket.send("POST /v1/trips HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
            let response = try socket.readResponse()
            return (response, socket.readUntilClosed())
        }
        #expect(response.status == 413)
        #expect(response.text.contains("\"code\":\"payload_too_large\""))
        #expect(closed)
        await server.shutdown()
    }

    @Test func fiveMegabyteResponseArrivesIntact() async throws {
        let (server, port) = try makeServer()
        let size = 5 * 1024 * 1024 + 123
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("GET /big?size=\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "\(size)")
        #expect(response.body.count == size)
        #expect(response.body == (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        #expect(server.metrics.snapshot().bytesSent >= size)
        await server.shutdown()
    }

    @Test func staticFilesAreServedWithContentTypes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hailnet-static-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<h1>map</h1>".utf8).write(to: directory.appendingPathComponent("index.html"))
        try Data("body{}".utf8).write(to: directory.appendingPathComponent("app.css"))
        try Data("<svg/>".utf8).write(to: directory.appendingPathComponent("car.svg"))
        let (server, port) = try makeServer { $0.staticFilesDirectory = directory.path }
        let responses = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            var out: [RawSocket.Response] = []
            for path in ["/", "/app.css", "/car.svg", "/missing"] {
                try socket.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                out.append(try socket.readResponse())
            }
            return out
        }
        #expect(responses[0].text == "<h1>map</h1>")
        #expect(responses[0].headers["content-type"] == "text/html; charset=utf-8")
        #expect(responses[1].headers["content-type"] == "text/css; charset=utf-8")
        #expect(responses[2].headers["content-type"] == "image/svg+xml")
        #expect(responses[3].status == 404)
        await server.shutdown()
    }

    @Test func runReturnsAfterShutdownAndPortIsReported() async throws {
        let server = NetServer(http: echoHandler)
        let port = try server.start()
        #expect(port > 0)
        #expect(server.port == port)
        let running = Task { try await server.run() }
        await server.shutdown()
        try await running.value
        #expect(throws: (any Error).self) { try RawSocket(port: port) }
    }

    @Test func runEndsWhenItsTaskIsCancelled() async throws {
        let server = NetServer(http: echoHandler)
        let port = try server.start()
        let running = Task { try await server.run() }
        running.cancel()
        try await running.value
        #expect(throws: (any Error).self) { try RawSocket(port: port) }
    }
}
