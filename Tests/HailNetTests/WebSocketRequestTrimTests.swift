import Testing

@testable import HailNet

/// What an open stream keeps of its handshake once its loop handler is made.
@Suite struct WebSocketRequestTrimTests {
    @Test func aTrimmedConnectionKeepsItsPathPeerAndRequestIDAndForgetsTheToken() {
        let connection = WebSocketConnection(
            id: 7,
            request: WebSocketRequest(
                path: "/v1/drivers/me/live", query: [QueryItem(name: "access_token", value: "tok")],
                headers: HTTPHeaders([("Authorization", "Bearer abc"), ("Sec-WebSocket-Key", "k")]),
                remoteAddress: "127.0.0.2", requestID: "ws-1"),
            limits: (essential: 4, disposable: 4), metrics: NetMetrics(), requestWrite: { _ in })
        #expect(connection.request.headers["authorization"] == "Bearer abc")
        connection.trimRequest()
        #expect(connection.request.path == "/v1/drivers/me/live")
        #expect(connection.request.remoteAddress == "127.0.0.2")
        #expect(connection.request.requestID == "ws-1")
        #expect(connection.request.headers["authorization"] == nil)
        #expect(connection.request.headers == HTTPHeaders())
        #expect(connection.request.queryValue("access_token") == nil)
    }
}
