import Foundation
import HailAppSeams
import HailClient
import HailNetTransport
import HailProtocol
import Testing

/// `NetHTTPExchange` under `HTTPTransport` against a server scripted byte by byte on loopback.
@Suite("NetHTTPExchange against a scripted server on loopback")
struct NetHTTPExchangeTests {
    private func transport(_ server: ScriptedHTTPServer, timeout: TimeInterval = 5) -> HTTPTransport {
        HTTPTransport(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, token: "token-1", timeout: timeout,
            exchange: NetHTTPExchange())
    }

    @Test func aChunkedAnswerIsReadAndItsConnectionCarriesTheNextRequest() async throws {
        let server = try ScriptedHTTPServer { connection, server in
            while let request = connection.readRequest() {
                server.record(request)
                connection.send(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n")
                connection.send("7\r\n{\"n\":\"a\r\n")
                connection.send("2\r\nb\"\r\n1\r\n}\r\n0\r\n\r\n")
            }
        }
        defer { server.shutdown() }
        let http = transport(server)
        let first = try await http.send("GET", "/v1/first?x=1")
        let second = try await http.send("POST", "/v1/second", body: Data("{}".utf8), idempotencyKey: UUID())
        #expect(String(decoding: first.body, as: UTF8.self) == "{\"n\":\"ab\"}")
        #expect(second.status == 200)
        #expect(server.connections == 1)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.hasPrefix("GET /v1/first?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n") == true)
        #expect(requests.first?.contains("\r\nAuthorization: Bearer token-1\r\n") == true)
        #expect(requests.last?.hasSuffix("\r\nContent-Length: 2\r\n\r\n{}") == true)
    }

    @Test func aConnectionClosedInsideTheBodyIsNoAnswer() async throws {
        let server = try ScriptedHTTPServer { connection, _ in
            _ = connection.readRequest()
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"half")
        }
        defer { server.shutdown() }
        let error = await #expect(throws: CallError.self) { try await transport(server).send("GET", "/v1/trips/t1") }
        #expect(error?.code == .noAnswer)
        #expect(
            error?.message
                == "GET /v1/trips/t1: 127.0.0.1:\(server.port) closed the connection after 6 bytes of the body")
        #expect(error?.isRetryable == true)
    }

    @Test func aServerThatNeverAnswersIsNoAnswerAtTheDeadline() async throws {
        let server = try ScriptedHTTPServer { connection, server in
            if let request = connection.readRequest() { server.record(request) }
            server.waitForShutdown()
        }
        defer { server.shutdown() }
        let error = await #expect(throws: CallError.self) {
            try await transport(server, timeout: 0.3).send("POST", "/v1/estimates", body: Data("{}".utf8))
        }
        #expect(error?.code == .noAnswer)
        #expect(error?.message == "POST /v1/estimates: no answer from 127.0.0.1:\(server.port) within 0.3 s")
        #expect(server.requests.count == 1)
    }

    @Test func a503WithRetryAfterIsAServerFailureThatHoldsTheNextRequest() async throws {
        let server = try ScriptedHTTPServer { connection, server in
            while let request = connection.readRequest() {
                server.record(request)
                let body = #"{"error":{"code":"unavailable","message":"Redis did not answer"}}"#
                connection.send(
                    "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
        }
        defer { server.shutdown() }
        let http = transport(server)
        let error = await #expect(throws: CallError.self) { try await http.send("GET", "/v1/trips/active") }
        #expect(error?.code == .serverFailed)
        #expect(error?.status == 503)
        #expect(error?.retryAfter == 7)
        #expect(error?.message == "Redis did not answer")
        let held = await #expect(throws: CallError.self) { try await http.send("GET", "/v1/trips/active") }
        #expect(held?.message.hasPrefix("not sent: the server asked to wait") == true)
        #expect(server.requests.count == 1)
    }

    @Test func aRefusedConnectionIsNoAnswerNamingIt() async throws {
        let server = try ScriptedHTTPServer { _, _ in }
        let port = server.port
        server.shutdown()
        let http = HTTPTransport(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "t", exchange: NetHTTPExchange())
        let error = await #expect(throws: CallError.self) { try await http.send("GET", "/healthz") }
        #expect(error?.code == .noAnswer)
        #expect(error?.message == "GET /healthz: 127.0.0.1:\(port): Connection refused")
    }

    @Test func aRequestLostOnAKeptAliveConnectionIsSentAgainOnlyWhenThatIsSafe() async throws {
        // Each connection answers its first request, then reads the next one and closes without an answer: the
        // race of a request written into a kept-alive connection as the server's idle timeout closes it.
        let server = try ScriptedHTTPServer { connection, server in
            guard let request = connection.readRequest() else { return }
            server.record(request)
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            if let unanswered = connection.readRequest() { server.record(unanswered) }
        }
        defer { server.shutdown() }
        let http = transport(server)
        _ = try await http.send("GET", "/one")
        let get = try await http.send("GET", "/two")
        let keyed = try await http.send("POST", "/three", body: Data("{}".utf8), idempotencyKey: UUID())
        #expect(get.body == Data("ok".utf8))
        #expect(keyed.body == Data("ok".utf8))
        let unkeyed = await #expect(throws: CallError.self) { try await http.send("POST", "/four") }
        #expect(unkeyed?.code == .noAnswer)
        #expect(unkeyed?.message == "POST /four: 127.0.0.1:\(server.port) closed the connection without an answer")
        let lines = server.requests.map { $0.components(separatedBy: "\r\n")[0] }
        #expect(
            lines == [
                "GET /one HTTP/1.1", "GET /two HTTP/1.1", "GET /two HTTP/1.1", "POST /three HTTP/1.1",
                "POST /three HTTP/1.1", "POST /four HTTP/1.1",
            ])
        #expect(server.connections == 3)
    }
}
