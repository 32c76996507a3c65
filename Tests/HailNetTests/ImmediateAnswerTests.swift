import Foundation
import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// The responses both servers give, made without suspending.
@Sendable private func fixedAnswer(_ request: HTTPRequest) -> HTTPResponse {
    switch request.path {
    case "/missing":
        return .error(status: 404, code: "not_found", message: "no such thing")
    case "/created":
        var response = HTTPResponse.json(status: 201, Array(#"{"id":"t-1"}"#.utf8))
        response.headers.add("X-Custom", "kept")
        response.headers.add("X-Request-Id", "the-handler's-own")
        return response
    default:
        return .text("\(request.method) \(request.path) body=\(String(decoding: request.body, as: UTF8.self))")
    }
}

/// `HTTPAnswer.now`: a response made on the loop goes out with no task, byte for byte as the same response made by
/// a task (`HTTPHandler`), errors, HEAD, bodies and unknown methods included.
@Suite struct ImmediateAnswerTests {
    /// Requests on one kept-alive connection, each with its own request id so the bytes are comparable.
    static let keptAlive = [
        "GET /hello?x=1 HTTP/1.1\r\nHost: x\r\nX-Request-Id: r-1\r\n\r\n",
        "HEAD /hello HTTP/1.1\r\nHost: x\r\nX-Request-Id: r-2\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-Id: r-3\r\nContent-Length: 5\r\n\r\nabcde",
        "GET /missing HTTP/1.1\r\nHost: x\r\nX-Request-Id: r-4\r\n\r\n",
        "DELETE /created HTTP/1.1\r\nHost: x\r\nX-Request-Id: r-5\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-Id: r-6\r\nContent-Length: 0\r\n\r\n",
    ]

    @Test func aResponseAnsweredNowHasTheBytesOfTheSameResponseAnsweredByATask() async throws {
        let now = NetServer(respond: { .now(fixedAnswer($0)) })
        let later = NetServer(http: { fixedAnswer($0) })
        var exchanges: [[[UInt8]]] = []
        var writes: [Int] = []
        for server in [now, later] {
            let port = try server.start()
            let before = server.metrics.snapshot()
            let raw = try await onItsOwnThread {
                let socket = try RawSocket(port: port)
                var answers = try Self.keptAlive.map { request in
                    try socket.send(request)
                    return try Self.rawResponse(socket, headOnly: request.hasPrefix("HEAD"))
                }
                // lws does not know BREW: the raw path answers it and closes (its request id is a random one,
                // so this asks for the route whose response brings its own).
                let other = try RawSocket(port: port)
                try other.send("BREW /created HTTP/1.1\r\nHost: x\r\n\r\n")
                answers.append(try Self.rawResponse(other, headOnly: false))
                return answers
            }
            _ = await server.trackedSessions
            writes.append(server.metrics.snapshot().httpResponseWrites - before.httpResponseWrites)
            exchanges.append(raw)
            await server.shutdown()
        }
        #expect(exchanges[0] == exchanges[1])
        // One write per response on both paths.
        #expect(writes == [7, 7])
        let texts = exchanges[0].map { String(decoding: $0, as: UTF8.self) }
        #expect(texts[0].hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(texts[0].hasSuffix("\r\n\r\nGET /hello body="))
        #expect(texts[0].contains("x-request-id: r-1\r\n"))
        #expect(texts[1].hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(texts[1].contains("content-length: 17\r\n"))
        #expect(texts[1].hasSuffix("\r\n\r\n"))
        #expect(texts[2].hasSuffix("\r\n\r\nPOST /echo body=abcde"))
        #expect(texts[3].hasPrefix("HTTP/1.1 404 "))
        #expect(texts[3].hasSuffix(#"{"error":{"code":"not_found","message":"no such thing"}}"#))
        #expect(texts[4].hasPrefix("HTTP/1.1 201 "))
        #expect(texts[4].contains("x-custom: kept\r\n"))
        #expect(texts[4].contains("x-request-id: the-handler's-own\r\n"))
        #expect(!texts[4].contains("r-5"))
        #expect(texts[5].hasSuffix("\r\n\r\nPOST /echo body="))
        #expect(texts[6].hasPrefix("HTTP/1.1 201 Status 201\r\n"))
        #expect(texts[6].contains("x-request-id: the-handler's-own\r\n"))
        #expect(texts[6].hasSuffix("connection: close\r\n\r\n{\"id\":\"t-1\"}"))
    }

    @Test func theResponderIsAskedOnceARequestAndItsLaterWorkRunsOnTheLoop() async throws {
        let asked = Mutex(0)
        let onLoop = Mutex<[Bool]>([])
        let holder = Mutex<NetServer?>(nil)
        let server = NetServer(respond: { request in
            asked.withLock { $0 += 1 }
            guard request.method == "POST" else { return .now(.text("now")) }
            return .later {
                let loop = holder.withLock { $0 }?.isOnLoopThread ?? false
                onLoop.withLock { $0.append(loop) }
                return .text("later")
            }
        })
        holder.withLock { $0 = server }
        let port = try server.start()
        let bodies = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            return try ["GET", "POST", "GET", "POST"].map { method in
                try socket.send("\(method) /x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                return try socket.readResponse().text
            }
        }
        #expect(bodies == ["now", "later", "now", "later"])
        #expect(asked.withLock { $0 } == 4)
        #expect(onLoop.withLock { $0 } == [true, true])
        await server.shutdown()
    }

    /// The status line and header fields, and the body when one follows (not for HEAD).
    private static func rawResponse(_ socket: RawSocket, headOnly: Bool) throws -> [UInt8] {
        let head = try socket.read(until: Array("\r\n\r\n".utf8))
        guard !headOnly else { return head }
        let text = String(decoding: head, as: UTF8.self).lowercased()
        let length =
            text.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return head + (try socket.read(count: length))
    }
}
