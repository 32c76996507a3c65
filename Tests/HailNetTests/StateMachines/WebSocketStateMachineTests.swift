import Testing

@testable import HailNet

/// `WebSocketStateMachine` routes each event to its side's machine and keeps what the event changed.
@Suite struct WebSocketStateMachineTests {
    /// The instant of the handshake; every other time is an offset from it.
    let start = ContinuousClock.now
    /// Pings after 20 s, drops after 60 s.
    let keepalive = Keepalive(pingSeconds: 20, idleSeconds: 60)
    /// The server side's handshake request.
    let request = WebSocketRequest(
        path: "/v1/drivers/d1/stream", query: [], headers: ["X-Request-Id": "ws2"], remoteAddress: "10.0.0.8",
        requestID: "ws2")

    @Test func serverSideRunsSideEventsAndThenFrameEventsOnTheServerMachine() {
        var machine = WebSocketStateMachine.server(
            WebSocketServerStateMachine(maxMessageBytes: 10, keepalive: keepalive))
        #expect(machine.withClient { $0.established(now: start) } == nil)
        #expect(machine.withServer { $0.upgradeRequested(request, handlerInstalled: true) } == .allowUpgrade)
        #expect(
            machine.received(byteCount: 1, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .ignore)
        #expect(machine.withServer { $0.established(now: start) } == .startHandler(request))
        #expect(machine.withServer { $0.established(now: start) } == .closeConnection)
        #expect(
            machine.received(byteCount: 4, kind: .binary, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        // The assembly begun by the previous event was kept: this chunk completes that message.
        #expect(
            machine.received(byteCount: 2, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverAssembled(.binary))
        #expect(machine.pauseReading() == .stopReceiving)
        #expect(machine.pauseReading() == .ignore)
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1006, reason: "connection lost", byPeer: false)))
        #expect(machine.closed() == .ignore)
    }

    @Test func clientSideRunsSideEventsAndThenFrameEventsOnTheClientMachine() {
        var machine = WebSocketStateMachine.client(
            WebSocketClientStateMachine(maxMessageBytes: 10, keepalive: keepalive))
        #expect(machine.withServer { $0.established(now: start) } == nil)
        #expect(machine.writeRequested() == .ignore)
        #expect(machine.withClient { $0.established(now: start) } == .resumeConnect)
        #expect(machine.withClient { $0.connectionFailed("late") } == .ignore)
        #expect(machine.writeRequested() == .requestWritable)
        #expect(
            machine.closeRequested(.init(code: 1001, reason: "client shutting down", immediate: false))
                == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        #expect(
            machine.closeRequested(.init(code: 1001, reason: "client shutting down", immediate: false))
                == .requestWritable)
        #expect(
            machine.withClient { $0.destroyed() }
                == .finish(WebSocketCloseInfo(code: 1001, reason: "client shutting down", byPeer: false)))
        #expect(machine.closed() == .ignore)
    }

    @Test func keepaliveOfEitherSideCountsFromItsHandshake() {
        var server = WebSocketStateMachine.server(
            WebSocketServerStateMachine(maxMessageBytes: 10, keepalive: keepalive))
        #expect(server.withServer { $0.upgradeRequested(request, handlerInstalled: true) } == .allowUpgrade)
        #expect(server.withServer { $0.established(now: start) } == .startHandler(request))
        var client = WebSocketStateMachine.client(
            WebSocketClientStateMachine(maxMessageBytes: 10, keepalive: keepalive))
        #expect(client.withClient { $0.established(now: start + .seconds(10)) } == .resumeConnect)
        #expect(server.keepaliveTick(now: start + .seconds(20), hasPendingWrites: false) == .requestWritable)
        #expect(client.keepaliveTick(now: start + .seconds(20), hasPendingWrites: false) == .ignore)
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(
            server.writable(queue: &queue, pendingClose: nil)
                == .writePing(Array("hail".utf8), thenRequestWritable: false))
        #expect(server.writable(queue: &queue, pendingClose: nil) == .idle)
        #expect(client.keepaliveTick(now: start + .seconds(70), hasPendingWrites: false) == .dropConnection)
        #expect(
            client.closed()
                == .finish(WebSocketCloseInfo(code: 1006, reason: "no traffic or pong for 60.0 seconds", byPeer: false))
        )
    }
}
