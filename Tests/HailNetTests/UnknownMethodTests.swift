import Foundation
import HailTesting
import Testing

@testable import HailNet

/// Methods libwebsockets does not know (it would answer them with an HTML 403 of its own) reach the handler like
/// any request, and its answer comes back whole before the connection closes.
@Suite struct UnknownMethodTests {
    @Test("TRACE reaches the handler with its path and the answer ends the connection")
    func traceReachesTheHandler() async throws {
        let (server, port) = try makeServer()
        let (response, closed) = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("TRACE /v1/trips/t%201?x=1 HTTP/1.1\r\nHost: x\r\nX-Secret: s\r\n\r\n")
            return (try socket.readResponse(), socket.readUntilClosed())
        }
        #expect(response.status == 200)
        #expect(response.headers["connection"] == "close")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        let lines = response.text.split(separator: "\n").map(String.init)
        #expect(lines.prefix(5) == ["method=TRACE", "path=/v1/trips/t 1", "query=", "auth=-", "idem=-"])
        #expect(closed)
        await server.shutdown()
    }

    @Test("a made-up method token gets the handler's JSON answer, never lws's HTML")
    func madeUpMethod() async throws {
        let (server, port) = try makeServer()
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("BREW /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 404)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.text == #"{"error":{"code":"not_found","message":"no such thing"}}"#)
        await server.shutdown()
    }

    @Test("CONNECT, which lws parses but HailNet used to drop, reaches the handler")
    func connectReachesTheHandler() async throws {
        let (server, port) = try makeServer()
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("CONNECT /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.text.hasPrefix("method=CONNECT\npath=/metrics\n"))
        await server.shutdown()
    }

    @Test("the request line is read from the raw bytes; anything else is no request")
    func requestLine() {
        #expect(
            UnknownMethodExchange.step(Array("trace /a%2Fb?q=1 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                == .dispatch(method: "TRACE", path: "/a/b"))
        #expect(
            UnknownMethodExchange.step(Array("TRACE /a HTTP/1.1".utf8)) == .readMore(Array("TRACE /a HTTP/1.1".utf8)))
        let malformed = UnknownMethodExchange.bytes(
            of: .error(status: 400, code: "invalid_body", message: "not an HTTP/1.1 request line"))
        for bad in ["TRACE a HTTP/1.1\r\n", "TR@CE /a HTTP/1.1\r\n", "TRACE /a\r\n", "\r\n"] {
            #expect(UnknownMethodExchange.step(Array(bad.utf8)) == .answer(malformed), "\(bad)")
        }
        let long = Array("TRACE /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 16_384)
        guard case .answer(let answer) = UnknownMethodExchange.step(long) else {
            Issue.record("a 16 KiB line without its end is still being read")
            return
        }
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 414 URI Too Long\r\n"))
    }

    @Test("a request line longer than one read (a long path) is gathered before it is answered")
    func longTargetIsGathered() async throws {
        let (server, port) = try makeServer()
        let path = "/" + String(repeating: "0", count: 9_000)
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("TRACE \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.text.hasPrefix("method=TRACE\npath=\(path)\n"))
        await server.shutdown()
    }

    @Test("the answer's bytes: status line, its headers, length, Connection: close, body")
    func answerBytes() {
        var response = HTTPResponse.error(status: 405, code: "method_not_allowed", message: "this path accepts GET")
        response.headers.add("Allow", "GET")
        response.headers.add("Connection", "keep-alive")
        let text = String(decoding: UnknownMethodExchange.bytes(of: response), as: UTF8.self)
        let body = #"{"error":{"code":"method_not_allowed","message":"this path accepts GET"}}"#
        #expect(
            text
                == "HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json\r\nallow: GET\r\n"
                + "content-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n" + body)
    }
}
