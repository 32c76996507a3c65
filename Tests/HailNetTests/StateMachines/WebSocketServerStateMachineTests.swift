import Testing

@testable import HailNet

/// The upgrade and end of `WebSocketServerStateMachine`, and its frame events before and after establishment.
@Suite struct WebSocketServerStateMachineTests {
    /// The instant of the upgrade; every other time is an offset from it.
    let start = ContinuousClock.now
    /// The handshake's request.
    let request = WebSocketRequest(
        path: "/v1/trips/t1/live", query: [QueryItem(name: "access_token", value: "abc")],
        headers: ["X-Request-Id": "ws1"], remoteAddress: "10.0.0.7", requestID: "ws1")

    /// A machine pinging after 20 s and dropping after 60 s, with messages up to 10 bytes.
    func machine() -> WebSocketServerStateMachine {
        WebSocketServerStateMachine(maxMessageBytes: 10, keepalive: Keepalive(pingSeconds: 20, idleSeconds: 60))
    }

    /// A machine whose connection was established at `start`.
    func established() -> WebSocketServerStateMachine {
        var machine = machine()
        #expect(machine.upgradeRequested(request, handlerInstalled: true) == .allowUpgrade)
        #expect(machine.established(now: start) == .startHandler(request))
        return machine
    }

    @Test func upgradeIsRefusedWithoutAHandler() {
        var machine = machine()
        #expect(machine.upgradeRequested(request, handlerInstalled: false) == .refuseUpgrade)
        #expect(machine.established(now: start) == .closeConnection)
    }

    @Test func establishmentStartsTheHandlerWithTheFilteredRequest() {
        var machine = machine()
        #expect(machine.upgradeRequested(request, handlerInstalled: true) == .allowUpgrade)
        #expect(machine.established(now: start) == .startHandler(request))
        #expect(machine.established(now: start) == .closeConnection)
        #expect(machine.upgradeRequested(request, handlerInstalled: true) == .refuseUpgrade)
    }

    @Test func establishActionsCompareTheRequest() {
        var other = request
        other.path = "/v1/other"
        #expect(WebSocketServerStateMachine.EstablishAction.startHandler(request) != .startHandler(other))
        #expect(WebSocketServerStateMachine.EstablishAction.startHandler(request) != .closeConnection)
    }

    @Test func establishmentWithoutAnUpgradeRequestCloses() {
        var machine = machine()
        #expect(machine.established(now: start) == .closeConnection)
    }

    @Test func frameEventsAreIgnoredBeforeEstablishment() {
        var machine = machine()
        #expect(machine.upgradeRequested(request, handlerInstalled: true) == .allowUpgrade)
        #expect(
            machine.received(byteCount: 1, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .ignore)
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(queue.enqueue(SharedMessage(text: "x"), priority: .essential) == .queued)
        #expect(machine.writable(queue: &queue, pendingClose: nil) == .idle)
        #expect(queue.essentialCount == 1)
        #expect(machine.writeRequested() == .ignore)
        #expect(
            machine.closeRequested(.init(code: 1000, reason: "", immediate: false)) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(100), hasPendingWrites: true) == .ignore)
        #expect(machine.pauseReading() == .ignore)
        #expect(machine.resumeReading() == .ignore)
        machine.peerClosed(payload: [0x03, 0xE8])
        machine.heard(now: start)
        #expect(machine.closed() == .ignore)
        // The ignored peer close is not remembered for later.
        #expect(machine.established(now: start) == .startHandler(request))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1006, reason: "connection lost", byPeer: false)))
    }

    @Test func establishedConnectionRunsTheFrameMachine() {
        var machine = established()
        #expect(
            machine.received(byteCount: 4, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverWhole(.text))
        let message = SharedMessage(text: "hello")
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(queue.enqueue(message, priority: .essential) == .queued)
        #expect(machine.writeRequested() == .requestWritable)
        #expect(
            machine.writable(queue: &queue, pendingClose: nil)
                == .writeMessage(message, thenRequestWritable: false))
        #expect(machine.pauseReading() == .stopReceiving)
        #expect(machine.pauseReading() == .ignore)
        #expect(machine.resumeReading() == .resumeReceiving)
    }

    @Test func keepaliveCountsFromEstablishment() {
        var machine = machine()
        #expect(machine.upgradeRequested(request, handlerInstalled: true) == .allowUpgrade)
        #expect(machine.established(now: start + .seconds(30)) == .startHandler(request))
        #expect(machine.keepaliveTick(now: start + .seconds(49), hasPendingWrites: false) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(50), hasPendingWrites: false) == .requestWritable)
        machine.heard(now: start + .seconds(80))
        #expect(machine.keepaliveTick(now: start + .seconds(139), hasPendingWrites: false) == .requestWritable)
        #expect(machine.keepaliveTick(now: start + .seconds(140), hasPendingWrites: false) == .dropConnection)
        #expect(machine.keepaliveTick(now: start + .seconds(141), hasPendingWrites: false) == .ignore)
    }

    @Test func rejectedUpgradeClosesWithTheHandlersCode() {
        var machine = established()
        let unauthorized = WebSocketFrameStateMachine.CloseRequest(code: 4401, reason: "unauthorized", immediate: false)
        #expect(machine.closeRequested(unauthorized) == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(
            machine.writable(queue: &queue, pendingClose: unauthorized) == .closeNow(code: 4401, reason: "unauthorized")
        )
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 4401, reason: "unauthorized", byPeer: false)))
    }

    @Test func closedThenDestroyedFinishesOnce() {
        var machine = established()
        machine.peerClosed(payload: [0x03, 0xE8] + Array("bye".utf8))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1000, reason: "bye", byPeer: true)))
        #expect(machine.closed() == .ignore)
    }
}
