import Testing

@testable import HailNet

/// Every event of `HTTPRequestStateMachine` in the states where it matters.
@Suite struct HTTPRequestStateMachineTests {
    /// The instant the connection starts; every other time is an offset from it.
    let start = ContinuousClock.now

    /// A machine with a 20 s request timeout.
    func machine(maxBodyBytes: Int = 10) -> HTTPRequestStateMachine {
        HTTPRequestStateMachine(maxBodyBytes: maxBodyBytes, requestTimeout: .seconds(20))
    }

    /// A request head with an empty body.
    func request(_ method: String, _ headers: HTTPHeaders = HTTPHeaders(), id: String = "r1") -> HTTPRequest {
        HTTPRequest(method: method, path: "/v1/things", headers: headers, requestID: id)
    }

    /// `request` as dispatched, with its body.
    func withBody(_ request: HTTPRequest, _ body: [UInt8]) -> HTTPRequest {
        var request = request
        request.body = body
        return request
    }

    /// The 413 the machine writes for a limit of `limit` bytes and request `id`.
    func payloadTooLarge(limit: Int, id: String) -> HTTPResponse {
        HTTPResponse(
            status: 413, headers: ["Content-Type": "application/json", "X-Request-Id": id],
            body: Array(
                "{\"error\":{\"code\":\"payload_too_large\",\"message\":\"request body exceeds \(limit) bytes\"}}".utf8)
        )
    }

    /// The head the machine writes for `response`.
    func head(_ response: HTTPResponse, closeConnection: Bool = false) -> HTTPRequestStateMachine.ResponseHead {
        HTTPRequestStateMachine.ResponseHead(
            status: response.status, headers: response.headers, contentLength: response.body.count,
            closeConnection: closeConnection)
    }

    @Test func requestWithoutBodyIsDispatchedAtItsHead() {
        var machine = machine()
        let get = request("GET")
        #expect(machine.receivedHead(get, now: start) == .dispatch(get, transaction: 1))
        #expect(machine.receivedBodyChunk([1, 2]) == .ignore)
        #expect(machine.bodyCompleted(now: start) == .ignore)
    }

    @Test func zeroLengthPostIsDispatchedAtItsHeadAndTheSecondCompletionIsIgnored() {
        var machine = machine()
        let post = request("POST", ["Content-Length": "0"])
        #expect(machine.receivedHead(post, now: start) == .dispatch(post, transaction: 1))
        #expect(machine.bodyCompleted(now: start) == .ignore)
        let response = HTTPResponse.text("ok")
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(machine.bodyCompleted(now: start) == .ignore)
        #expect(machine.writable() == .writeHead(head(response), body: [111, 107], then: .completeTransaction))
    }

    @Test func bodyIsAppendedAndDispatchedAtCompletion() {
        var machine = machine()
        let post = request("POST", ["Content-Length": "5"])
        #expect(machine.receivedHead(post, now: start) == .readMore)
        #expect(machine.receivedBodyChunk([1, 2]) == .readMore)
        #expect(machine.receivedBodyChunk([3, 4, 5]) == .readMore)
        #expect(machine.bodyCompleted(now: start) == .dispatch(withBody(post, [1, 2, 3, 4, 5]), transaction: 1))
        #expect(machine.bodyCompleted(now: start) == .ignore)
        #expect(machine.receivedBodyChunk([6]) == .ignore)
    }

    @Test func aRequestWithABodyIsStampedWhenItsBodyCompletesOneWithoutAtItsHead() {
        var machine = machine()
        let get = HTTPRequest(method: "GET", path: "/v1/things", receivedAt: start)
        guard case .dispatch(let headOnly, _) = machine.receivedHead(get, now: start) else {
            Issue.record("a GET is dispatched at its head")
            return
        }
        #expect(headOnly.receivedAt == start)
        // The body came 5 s after the head (a slow uplink, or a client that held it): the deadline starts now.
        let post = HTTPRequest(
            method: "POST", path: "/v1/things", headers: ["Content-Length": "2"], receivedAt: start + .seconds(6))
        #expect(machine.receivedHead(post, now: start + .seconds(6)) == .readMore)
        #expect(machine.receivedBodyChunk([1, 2]) == .readMore)
        guard case .dispatch(let whole, let transaction) = machine.bodyCompleted(now: start + .seconds(11)) else {
            Issue.record("the POST is dispatched at its body's completion")
            return
        }
        #expect(transaction == 2)
        #expect(whole.body == [1, 2])
        #expect(whole.receivedAt == start + .seconds(11))
    }

    @Test func chunkedBodyWaitsForCompletion() {
        var machine = machine()
        let post = request("POST", ["Transfer-Encoding": "Chunked"])
        #expect(machine.receivedHead(post, now: start) == .readMore)
        #expect(machine.receivedBodyChunk(Array("hi".utf8)) == .readMore)
        #expect(machine.bodyCompleted(now: start) == .dispatch(withBody(post, Array("hi".utf8)), transaction: 1))
    }

    @Test func bodyOfExactlyTheLimitIsAccepted() {
        var machine = machine(maxBodyBytes: 4)
        let post = request("POST", ["Content-Length": "4"])
        #expect(machine.receivedHead(post, now: start) == .readMore)
        #expect(machine.receivedBodyChunk([1, 2, 3, 4]) == .readMore)
        #expect(machine.bodyCompleted(now: start) == .dispatch(withBody(post, [1, 2, 3, 4]), transaction: 1))
    }

    @Test func declaredBodyOverTheLimitIsAnswered413AndTheConnectionClosesAfter() {
        var machine = machine(maxBodyBytes: 10)
        #expect(
            machine.receivedHead(request("POST", ["Content-Length": "11"], id: "big"), now: start) == .requestWritable)
        // The unread body and its completion still arrive; the request was never dispatched.
        #expect(machine.receivedBodyChunk([1, 2, 3]) == .ignore)
        #expect(machine.bodyCompleted(now: start) == .ignore)
        #expect(machine.responseReady(.text("late"), transaction: 1) == .ignore)
        let rejection = payloadTooLarge(limit: 10, id: "big")
        #expect(
            machine.writable()
                == .writeHead(head(rejection, closeConnection: true), body: rejection.body[...], then: .closeConnection)
        )
        #expect(machine.writable() == .ignore)
    }

    @Test func bodyGrowingOverTheLimitIsAnswered413() {
        var machine = machine(maxBodyBytes: 10)
        #expect(
            machine.receivedHead(request("POST", ["Transfer-Encoding": "chunked"], id: "grew"), now: start) == .readMore
        )
        #expect(machine.receivedBodyChunk([UInt8](repeating: 1, count: 6)) == .readMore)
        #expect(machine.receivedBodyChunk([UInt8](repeating: 2, count: 5)) == .requestWritable)
        #expect(machine.receivedBodyChunk([3]) == .ignore)
        #expect(machine.bodyCompleted(now: start) == .ignore)
        let rejection = payloadTooLarge(limit: 10, id: "grew")
        #expect(
            machine.writable()
                == .writeHead(head(rejection, closeConnection: true), body: rejection.body[...], then: .closeConnection)
        )
    }

    @Test func staleOrRepeatedResponsesAreIgnored() {
        var machine = machine()
        let first = request("GET", id: "first")
        let second = request("GET", id: "second")
        #expect(machine.receivedHead(first, now: start) == .dispatch(first, transaction: 1))
        #expect(machine.receivedHead(second, now: start) == .dispatch(second, transaction: 2))
        #expect(machine.responseReady(.text("for first"), transaction: 1) == .ignore)
        let response = HTTPResponse.text("for second")
        #expect(machine.responseReady(response, transaction: 2) == .requestWritable)
        #expect(machine.responseReady(.text("again"), transaction: 2) == .ignore)
        #expect(machine.writable() == .writeHead(head(response), body: response.body[...], then: .completeTransaction))
    }

    @Test func responseBeforeDispatchIsIgnored() {
        var machine = machine()
        #expect(machine.responseReady(.text("nobody asked"), transaction: 0) == .ignore)
        #expect(machine.receivedHead(request("POST", ["Content-Length": "3"]), now: start) == .readMore)
        #expect(machine.responseReady(.text("too early"), transaction: 1) == .ignore)
        #expect(machine.writable() == .ignore)
    }

    /// The keep-alive stall's regression at the machine: a small answer (/healthz's 15 bytes) is one write,
    /// head and body together, and the transaction completes with it.
    @Test func smallResponseLeavesInOneWriteWithItsHead() {
        var machine = machine()
        let get = request("GET")
        #expect(machine.receivedHead(get, now: start) == .dispatch(get, transaction: 1))
        let response = HTTPResponse.json(Array("{\"status\":\"ok\"}".utf8))
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(
            machine.writable()
                == .writeHead(head(response), body: Array("{\"status\":\"ok\"}".utf8)[...], then: .completeTransaction))
        #expect(machine.writable() == .ignore)
    }

    /// A large answer: the head carries the first 65,536 bytes, the rest follow a piece per callback, the last final.
    @Test func largeResponseSendsItsFirstPieceWithTheHeadAndTheRestInPieces() {
        var machine = machine()
        let get = request("GET")
        #expect(machine.receivedHead(get, now: start) == .dispatch(get, transaction: 1))
        let body = (0..<(2 * 65_536 + 1)).map { UInt8(truncatingIfNeeded: $0) }
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body)
        #expect(machine.writable() == .ignore)
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(machine.writable() == .writeHead(head(response), body: body[0..<65_536], then: .requestWritable))
        #expect(machine.writable() == .writeBody(body[65_536..<131_072], isFinal: false, then: .requestWritable))
        #expect(machine.writable() == .writeBody(body[131_072..<131_073], isFinal: true, then: .completeTransaction))
        #expect(machine.writable() == .ignore)
    }

    @Test func bodyOfExactlyOnePieceLeavesWithTheHead() {
        var machine = machine()
        let get = request("GET")
        #expect(machine.receivedHead(get, now: start) == .dispatch(get, transaction: 1))
        let response = HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 65_536))
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(machine.writable() == .writeHead(head(response), body: response.body[...], then: .completeTransaction))
        #expect(machine.writable() == .ignore)
    }

    @Test func bodyOfOneByteOverAPieceTakesASecondWrite() {
        var machine = machine()
        let get = request("GET")
        #expect(machine.receivedHead(get, now: start) == .dispatch(get, transaction: 1))
        let response = HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 65_537))
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(
            machine.writable() == .writeHead(head(response), body: response.body[0..<65_536], then: .requestWritable))
        #expect(machine.writable() == .writeBody([7], isFinal: true, then: .completeTransaction))
    }

    @Test func emptyBodyCompletesWithTheHead() {
        var machine = machine()
        let delete = request("DELETE")
        #expect(machine.receivedHead(delete, now: start) == .dispatch(delete, transaction: 1))
        let response = HTTPResponse(status: 204)
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(machine.writable() == .writeHead(head(response), body: [], then: .completeTransaction))
        #expect(machine.writable() == .ignore)
    }

    @Test func headRequestWritesTheHeadOnlyWithTheBodysLength() {
        var machine = machine()
        let headRequest = request("HEAD")
        #expect(machine.receivedHead(headRequest, now: start) == .dispatch(headRequest, transaction: 1))
        let response = HTTPResponse.text("a body that is not sent")
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        let expected = HTTPRequestStateMachine.ResponseHead(
            status: 200, headers: response.headers, contentLength: 23, closeConnection: false)
        #expect(machine.writable() == .writeHead(expected, body: [], then: .completeTransaction))
        #expect(machine.writable() == .ignore)
    }

    @Test func keptAliveConnectionRunsTheNextTransaction() {
        var machine = machine()
        let first = request("GET", id: "first")
        #expect(machine.receivedHead(first, now: start) == .dispatch(first, transaction: 1))
        let response = HTTPResponse(status: 204)
        #expect(machine.responseReady(response, transaction: 1) == .requestWritable)
        #expect(machine.writable() == .writeHead(head(response), body: [], then: .completeTransaction))
        let second = request("POST", ["Content-Length": "1"], id: "second")
        #expect(machine.receivedHead(second, now: start) == .readMore)
        #expect(machine.receivedBodyChunk([9]) == .readMore)
        #expect(machine.bodyCompleted(now: start) == .dispatch(withBody(second, [9]), transaction: 2))
        #expect(machine.responseReady(response, transaction: 1) == .ignore)
        #expect(machine.responseReady(response, transaction: 2) == .requestWritable)
    }

    @Test func bodyStillArrivingAtTheDeadlineIsDroppedOnce() {
        var machine = machine()
        #expect(machine.receivedHead(request("POST", ["Content-Length": "5"]), now: start) == .readMore)
        #expect(machine.tick(now: start + .seconds(19)) == .ignore)
        #expect(machine.receivedBodyChunk([1]) == .readMore)
        #expect(machine.tick(now: start + .seconds(20)) == .dropSlowRequest)
        #expect(machine.tick(now: start + .seconds(21)) == .ignore)
        #expect(machine.tick(now: start + .seconds(60)) == .ignore)
    }

    @Test func dispatchedRequestsAreNeverDropped() {
        var machine = machine()
        let post = request("POST", ["Content-Length": "1"])
        #expect(machine.receivedHead(post, now: start) == .readMore)
        #expect(machine.receivedBodyChunk([1]) == .readMore)
        #expect(machine.bodyCompleted(now: start) == .dispatch(withBody(post, [1]), transaction: 1))
        #expect(machine.tick(now: start + .seconds(100)) == .ignore)
        #expect(machine.responseReady(.text("slow handler"), transaction: 1) == .requestWritable)
        #expect(machine.tick(now: start + .seconds(100)) == .ignore)
    }

    @Test func deadlineRunsFromEachHead() {
        var machine = machine()
        let get = request("GET")
        #expect(machine.receivedHead(get, now: start) == .dispatch(get, transaction: 1))
        #expect(machine.receivedHead(request("POST", ["Content-Length": "1"]), now: start + .seconds(30)) == .readMore)
        #expect(machine.tick(now: start + .seconds(49)) == .ignore)
        #expect(machine.tick(now: start + .seconds(50)) == .dropSlowRequest)
    }

    @Test func rejectionOfAGrownBodyKeepsTheDeadline() {
        var machine = machine(maxBodyBytes: 10)
        #expect(machine.receivedHead(request("POST", ["Content-Length": "8"]), now: start) == .readMore)
        #expect(machine.receivedBodyChunk([UInt8](repeating: 0, count: 11)) == .requestWritable)
        #expect(machine.tick(now: start + .seconds(19)) == .ignore)
        #expect(machine.tick(now: start + .seconds(20)) == .dropSlowRequest)
        #expect(machine.tick(now: start + .seconds(21)) == .ignore)
    }

    @Test func rejectionAtTheHeadHasNoDeadline() {
        var machine = machine(maxBodyBytes: 10)
        #expect(machine.receivedHead(request("POST", ["Content-Length": "100"]), now: start) == .requestWritable)
        #expect(machine.tick(now: start + .seconds(100)) == .ignore)
    }
}
