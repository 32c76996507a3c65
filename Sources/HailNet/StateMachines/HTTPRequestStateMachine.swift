/// One HTTP/1.1 connection's request/response cycle (one transaction at a time, no pipelining), as the
/// server engine drives it from lws callbacks; pure: the runtime performs every action it returns.
///
/// Where the bytes live: the machine holds the request it is reading and the response it is writing, because
/// those values are what the cycle is about and handing them back and forth would only add copies. It copies
/// neither. A body chunk is appended in place (the `modifying` state keeps the body array uniquely referenced
/// while it grows), the finished request moves out whole in `.dispatch`, and the response body goes out as
/// `ArraySlice` views of at most `maximumChunkBytes` that share the response's storage; the runtime copies each
/// one once into its `LWS_PRE` scratch buffer, as it must anyway because lws writes in front of the payload.
///
/// How the bytes leave: the head and the body's first piece in one write, so a response of up to
/// `maximumChunkBytes` of body is one write and one TCP segment train. A head written alone, its body in the next
/// writable callback, met a kept-alive client's delayed ACK: 40 ms per request with Nagle on, and a second
/// system call and packet per response with it off.
struct HTTPRequestStateMachine: Sendable {
    /// The largest response body piece written per writable callback, the first one with the head.
    static let maximumChunkBytes = 65_536

    /// Bodies declared or grown past this many bytes are answered 413 without being read.
    let maxBodyBytes: Int
    /// How long a request may take from its head to its last body byte before it is dropped.
    let requestTimeout: Duration

    /// Counts requests on this connection, so a handler's late response for an older one is ignored.
    private var transaction: UInt64 = 0
    private var state: State = .idle

    /// A machine for a new connection, waiting for its first request head.
    init(maxBodyBytes: Int, requestTimeout: Duration) {
        self.maxBodyBytes = maxBodyBytes
        self.requestTimeout = requestTimeout
    }

    private enum State {
        /// Between transactions: no request is being read or answered.
        case idle
        /// The head arrived and the body is still coming. `deadline` is nil once the tick has dropped the request:
        /// the runtime kills the connection then, so nothing else changes here.
        case readingBody(HTTPRequest, deadline: ContinuousClock.Instant?)
        /// The request went to the handler; its response has not come back yet.
        case awaitingResponse(headOnly: Bool)
        /// A response (the handler's, or a 413) is being written in stages.
        case writingResponse(PendingWrite)
        /// Transient, while a payload is mutated in place, so it is not shared with `state` and copied.
        case modifying
    }

    /// A response being written: the headers with the body's first piece, then the rest in pieces.
    private struct PendingWrite {
        var response: HTTPResponse
        var offset = 0
        var headersSent = false
        /// Close the connection after the last byte (413: the unread body makes keep-alive impossible).
        var closeAfter = false
        var headOnly = false
        /// A 413 for a body that outgrew the limit keeps the request's deadline: a client that then stops
        /// reading is still dropped on time.
        var deadline: ContinuousClock.Instant?
    }

    // MARK: Actions

    /// What the runtime does after a head, a body chunk or the body's completion.
    enum ReadAction: Equatable {
        /// Run the handler for this request; pass `transaction` back with its response.
        case dispatch(HTTPRequest, transaction: UInt64)
        /// Nothing yet: more of the body is expected (the chunk, if any, is stored).
        case readMore
        /// A 413 answer is ready: ask lws for a writable callback (`lws_callback_on_writable`).
        case requestWritable
        /// The input belongs to no request being read (already dispatched, rejected or dropped): discard it.
        case ignore

        /// Same case and payload, requests compared field by field (HTTPRequest itself is not Equatable).
        static func == (lhs: ReadAction, rhs: ReadAction) -> Bool {
            switch (lhs, rhs) {
            case (.dispatch(let left, let leftTransaction), .dispatch(let right, let rightTransaction)):
                return leftTransaction == rightTransaction && left.method == right.method && left.path == right.path
                    && left.query == right.query && left.headers == right.headers && left.body == right.body
                    && left.remoteAddress == right.remoteAddress && left.requestID == right.requestID
            case (.readMore, .readMore), (.requestWritable, .requestWritable), (.ignore, .ignore):
                return true
            default:
                return false
            }
        }
    }

    /// What the runtime does with a handler's response.
    enum ResponseAction: Equatable {
        /// The response is accepted: ask lws for a writable callback.
        case requestWritable
        /// The response is stale (an older transaction) or the request was already answered (413): drop it.
        case ignore
    }

    /// The status line and header fields of a response, for `lws_add_http_common_headers` and friends.
    struct ResponseHead: Equatable, Sendable {
        /// The status code.
        var status: Int
        /// The handler's header fields; the runtime derives Content-Type from them and skips Content-Length and
        /// Connection, which lws writes.
        var headers: HTTPHeaders
        /// The body length to declare, also for HEAD, where the body itself is not sent.
        var contentLength: Int
        /// Add `Connection: close` (the connection closes after this response).
        var closeConnection: Bool
    }

    /// What the runtime does once a write succeeded (a failed write returns -1 instead).
    enum AfterWrite: Equatable, Sendable {
        /// More to write: ask lws for another writable callback, which comes once the socket has drained.
        case requestWritable
        /// The response is complete: call `lws_http_transaction_completed`, returning -1 when it is non-zero.
        case completeTransaction
        /// The response is complete and the connection must close: return -1.
        case closeConnection
    }

    /// What the runtime writes on a writable callback.
    enum WriteAction: Equatable {
        /// Write the head followed by `body` (the body's first piece; empty for HEAD and empty bodies) in ONE write
        /// (`LWS_WRITE_HTTP_FINAL` when `then` ends the response), then do `then`.
        case writeHead(ResponseHead, body: ArraySlice<UInt8>, then: AfterWrite)
        /// Write this piece of the body (`LWS_WRITE_HTTP_FINAL` when `isFinal`, else `LWS_WRITE_HTTP`), then do `then`.
        case writeBody(ArraySlice<UInt8>, isFinal: Bool, then: AfterWrite)
        /// Nothing to write.
        case ignore
    }

    /// What the runtime does on the periodic tick.
    enum TickAction: Equatable {
        /// The request missed its deadline: count a slow-request drop and kill the connection
        /// (`lws_set_timeout` with `LWS_TO_KILL_ASYNC`).
        case dropSlowRequest
        /// Nothing is late.
        case ignore
    }

    // MARK: Events

    /// LWS_CALLBACK_HTTP: a request head, with an empty body; starts a new transaction, whatever came before.
    mutating func receivedHead(_ request: HTTPRequest, now: ContinuousClock.Instant) -> ReadAction {
        transaction += 1
        let declared = Int(request.headers["content-length"] ?? "") ?? 0
        if declared > maxBodyBytes {
            return reject(request, deadline: nil)
        }
        let deadline = now + requestTimeout
        let chunked = request.headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        if declared > 0 || chunked {
            state = .readingBody(request, deadline: deadline)
            return .readMore
        }
        return dispatch(request)
    }

    /// LWS_CALLBACK_HTTP_BODY: one chunk of the body.
    mutating func receivedBodyChunk(_ chunk: some Collection<UInt8>) -> ReadAction {
        guard case .readingBody(var request, let deadline) = state else { return .ignore }
        if request.body.count + chunk.count > maxBodyBytes {
            return reject(request, deadline: deadline)
        }
        state = .modifying
        request.body.append(contentsOf: chunk)
        state = .readingBody(request, deadline: deadline)
        return .readMore
    }

    /// LWS_CALLBACK_HTTP_BODY_COMPLETION: the body is complete, read at `now`. The request is stamped with `now`
    /// (`HTTPRequest.receivedAt`): its answer's deadline counts from the moment it is whole, not from its head, so
    /// the time the client took to send the body (a slow uplink, or a request held open across a drain's start)
    /// is not spent from what the handler has.
    ///
    /// lws also sends this after a `Content-Length: 0` POST that was dispatched at its head; that request is no
    /// longer being read, so the second completion is ignored.
    mutating func bodyCompleted(now: ContinuousClock.Instant) -> ReadAction {
        guard case .readingBody(var request, _) = state else { return .ignore }
        request.receivedAt = now
        return dispatch(request)
    }

    /// The handler answered the request of `transaction`.
    mutating func responseReady(_ response: HTTPResponse, transaction: UInt64) -> ResponseAction {
        guard transaction == self.transaction, case .awaitingResponse(let headOnly) = state else { return .ignore }
        state = .writingResponse(PendingWrite(response: response, headOnly: headOnly))
        return .requestWritable
    }

    /// LWS_CALLBACK_HTTP_WRITEABLE: writes the head with the body's first piece, then one piece per callback.
    mutating func writable() -> WriteAction {
        guard case .writingResponse(var pending) = state else { return .ignore }
        let body = pending.response.body
        if !pending.headersSent {
            pending.headersSent = true
            let head = ResponseHead(
                status: pending.response.status, headers: pending.response.headers, contentLength: body.count,
                closeConnection: pending.closeAfter)
            if pending.headOnly {
                return .writeHead(head, body: body[0..<0], then: finish(pending))
            }
            let piece = nextPiece(&pending)
            return .writeHead(head, body: piece, then: afterPiece(pending))
        }
        let piece = nextPiece(&pending)
        let isFinal = pending.offset == body.count
        return .writeBody(piece, isFinal: isFinal, then: afterPiece(pending))
    }

    /// The periodic sweep: a request whose body has not completed by its deadline is dropped, once.
    mutating func tick(now: ContinuousClock.Instant) -> TickAction {
        switch state {
        case .readingBody(let request, let deadline?) where now >= deadline:
            state = .readingBody(request, deadline: nil)
            return .dropSlowRequest
        case .writingResponse(var pending):
            guard let deadline = pending.deadline, now >= deadline else { return .ignore }
            pending.deadline = nil
            state = .writingResponse(pending)
            return .dropSlowRequest
        case .idle, .readingBody, .awaitingResponse, .modifying:
            return .ignore
        }
    }

    // MARK: Steps

    private mutating func dispatch(_ request: HTTPRequest) -> ReadAction {
        state = .awaitingResponse(headOnly: request.method == "HEAD")
        return .dispatch(request, transaction: transaction)
    }

    /// Answers 413 and closes afterwards; the request is never dispatched, so no handler response can race it.
    private mutating func reject(_ request: HTTPRequest, deadline: ContinuousClock.Instant?) -> ReadAction {
        var response = HTTPResponse.error(
            status: 413, code: "payload_too_large", message: "request body exceeds \(maxBodyBytes) bytes")
        response.headers.set("X-Request-Id", request.requestID)
        state = .writingResponse(PendingWrite(response: response, closeAfter: true, deadline: deadline))
        return .requestWritable
    }

    /// The next piece of the body, at most `maximumChunkBytes`, moving the offset past it.
    private func nextPiece(_ pending: inout PendingWrite) -> ArraySlice<UInt8> {
        let body = pending.response.body
        let count = min(Self.maximumChunkBytes, body.count - pending.offset)
        defer { pending.offset += count }
        return body[pending.offset..<pending.offset + count]
    }

    /// After a piece: the response is done when the body is, else the rest waits for the next callback.
    private mutating func afterPiece(_ pending: PendingWrite) -> AfterWrite {
        if pending.offset == pending.response.body.count { return finish(pending) }
        state = .writingResponse(pending)
        return .requestWritable
    }

    private mutating func finish(_ pending: PendingWrite) -> AfterWrite {
        state = .idle
        return pending.closeAfter ? .closeConnection : .completeTransaction
    }
}
