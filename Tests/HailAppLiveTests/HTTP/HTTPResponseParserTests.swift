import Testing

@testable import HailNetTransport

@Suite("HTTPResponseParser: framings and malformed answers, byte by byte")
struct HTTPResponseParserTests {
    private func feedByteByByte(_ text: String, expectsBody: Bool = true) throws -> HTTPResponseParts? {
        var parser = HTTPResponseParser(expectsBody: expectsBody)
        for byte in Array(text.utf8) {
            if case .complete(let parts) = try parser.feed([byte]) { return parts }
        }
        return nil
    }

    @Test func aContentLengthBodyArrivingOneByteAtATimeIsWholeAtItsLastByte() throws {
        let parts = try #require(
            try feedByteByByte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Hail-Server-Time: t\r\n\r\nhello"))
        #expect(parts.status == 200)
        #expect(String(decoding: parts.body, as: UTF8.self) == "hello")
        #expect(parts.headers.map(\.name) == ["Content-Length", "X-Hail-Server-Time"])
        #expect(parts.reusable)
    }

    @Test func aChunkedBodyWithAnExtensionAndTrailersIsJoined() throws {
        let text =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\n{\"a\"\r\n0A\r\n:12345678}\r\n0\r\nX-T: 1\r\n\r\n"
        let parts = try #require(try feedByteByByte(text))
        #expect(String(decoding: parts.body, as: UTF8.self) == "{\"a\":12345678}")
        #expect(parts.reusable)
    }

    @Test func connectionCloseOrHTTP10LeavesTheConnectionUnreused() throws {
        let closing = try #require(
            try feedByteByByte("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
        #expect(!closing.reusable)
        let old = try #require(try feedByteByByte("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        #expect(!old.reusable)
        let oldKept = try #require(
            try feedByteByByte("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok"))
        #expect(oldKept.reusable)
    }

    @Test func aBodyWithoutLengthEndsAtTheClose() throws {
        var parser = HTTPResponseParser()
        #expect(try parser.feed(Array("HTTP/1.1 200 OK\r\n\r\npart one, ".utf8)) == .needMore)
        #expect(try parser.feed(Array("part two".utf8)) == .needMore)
        let parts = try parser.closed()
        #expect(String(decoding: parts.body, as: UTF8.self) == "part one, part two")
        #expect(!parts.reusable)
    }

    @Test func noBodyFor204NorForHEADWhateverTheFieldsSay() throws {
        let empty = try #require(try feedByteByByte("HTTP/1.1 204 No Content\r\n\r\n"))
        #expect(empty.status == 204 && empty.body.isEmpty && empty.reusable)
        let head = try #require(try feedByteByByte("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", expectsBody: false))
        #expect(head.body.isEmpty && head.reusable)
    }

    @Test func anInterimAnswerIsSkipped() throws {
        let parts = try #require(
            try feedByteByByte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"))
        #expect(parts.status == 201)
        #expect(parts.body == Array("{}".utf8))
    }

    @Test func bytesAfterTheAnswerMakeTheConnectionUnreused() throws {
        var parser = HTTPResponseParser()
        let progress = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1".utf8))
        #expect(
            progress
                == .complete(
                    HTTPResponseParts(
                        status: 200, headers: [("Content-Length", "2")], body: Array("ok".utf8), reusable: false)))
    }

    @Test func aCloseInsideTheBodyIsTruncationAndBeforeAnyByteIsAClose() throws {
        var parser = HTTPResponseParser()
        _ = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello".utf8))
        #expect(throws: HTTPResponseError(.truncated, "closed the connection after 5 bytes of the body")) {
            try parser.closed()
        }
        var silent = HTTPResponseParser()
        #expect(!silent.answerStarted)
        #expect(throws: HTTPResponseError(.closed, "closed the connection without an answer")) { try silent.closed() }
    }

    @Test func malformedAnswersAreRefusedNamingTheProblem() {
        #expect(throws: HTTPResponseError(.malformed, "not an HTTP/1.x status line: SSH-2.0-OpenSSH_9.6")) {
            var parser = HTTPResponseParser()
            _ = try parser.feed(Array("SSH-2.0-OpenSSH_9.6\r\n\r\n".utf8))
        }
        #expect(throws: HTTPResponseError(.malformed, "a Content-Length that is not one number")) {
            var parser = HTTPResponseParser()
            _ = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n".utf8))
        }
        #expect(throws: HTTPResponseError(.malformed, "a chunk size that is not hexadecimal")) {
            var parser = HTTPResponseParser()
            _ = try parser.feed(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8))
        }
        #expect(throws: HTTPResponseError(.malformed, "a transfer coding other than chunked: gzip")) {
            var parser = HTTPResponseParser()
            _ = try parser.feed(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n".utf8))
        }
    }
}
