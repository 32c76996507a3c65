import Testing

@testable import HailNet

/// The connect outcome of `WebSocketClientStateMachine` and its frame events before and after the handshake.
@Suite struct WebSocketClientStateMachineTests {
    /// The instant of the handshake; every other time is an offset from it.
    let start = ContinuousClock.now

    /// A machine pinging after 20 s and dropping after 60 s, with messages up to 10 bytes.
    func machine() -> WebSocketClientStateMachine {
        WebSocketClientStateMachine(maxMessageBytes: 10, keepalive: Keepalive(pingSeconds: 20, idleSeconds: 60))
    }

    @Test func handshakeResumesTheConnectOnce() {
        var machine = machine()
        #expect(machine.established(now: start) == .resumeConnect)
        #expect(machine.established(now: start) == .ignore)
        #expect(machine.connectionFailed("late error") == .ignore)
    }

    @Test func connectionErrorFailsTheConnectOnce() {
        var machine = machine()
        #expect(machine.connectionFailed("connection refused") == .failConnect("connection refused"))
        #expect(machine.connectionFailed("could not start connecting to 127.0.0.1:9") == .ignore)
        #expect(machine.destroyed() == .ignore)
        #expect(machine.established(now: start) == .ignore)
        #expect(machine.closed() == .ignore)
    }

    @Test func destructionDuringTheHandshakeFailsTheConnect() {
        var machine = machine()
        #expect(machine.destroyed() == .failConnect("connection closed during the handshake"))
        #expect(machine.destroyed() == .ignore)
        #expect(machine.connectionFailed("after the end") == .ignore)
        #expect(machine.established(now: start) == .ignore)
    }

    @Test func frameEventsAreIgnoredUntilTheHandshake() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 1, kind: .binary, isFinalFragment: true, remainingPayload: 0, now: start)
                == .ignore)
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(queue.enqueue(SharedMessage(text: "x"), priority: .essential) == .queued)
        #expect(machine.writable(queue: &queue, pendingClose: nil) == .idle)
        #expect(machine.writeRequested() == .ignore)
        #expect(machine.closeRequested(.init(code: 1000, reason: "", immediate: true)) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(100), hasPendingWrites: true) == .ignore)
        #expect(machine.pauseReading() == .ignore)
        #expect(machine.resumeReading() == .ignore)
        #expect(machine.closed() == .ignore)
    }

    @Test func establishedClientWritesItsQueuedMessages() {
        var machine = machine()
        #expect(machine.established(now: start) == .resumeConnect)
        let message = SharedMessage(text: "position")
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(queue.enqueue(message, priority: .disposable) == .queued)
        #expect(machine.writeRequested() == .requestWritable)
        #expect(
            machine.writable(queue: &queue, pendingClose: nil)
                == .writeMessage(message, thenRequestWritable: false))
    }

    @Test func establishedClientPingsAndAssemblesLikeTheServer() {
        var machine = machine()
        #expect(machine.established(now: start) == .resumeConnect)
        #expect(
            machine.received(byteCount: 5, kind: .text, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 5, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverAssembled(.text))
        #expect(machine.keepaliveTick(now: start + .seconds(20), hasPendingWrites: false) == .requestWritable)
        var queue = OutboundQueue(essentialLimit: 4, disposableLimit: 4)
        #expect(
            machine.writable(queue: &queue, pendingClose: nil)
                == .writePing(Array("hail".utf8), thenRequestWritable: false))
    }

    @Test func clientClosedThenDestroyedFinishesOnce() {
        var machine = machine()
        #expect(machine.established(now: start) == .resumeConnect)
        machine.peerClosed(payload: [0x03, 0xE9])
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1001, reason: "", byPeer: true)))
        #expect(machine.destroyed() == .ignore)
    }

    @Test func destructionAfterTheHandshakeFinishesTheConnection() {
        var machine = machine()
        #expect(machine.established(now: start) == .resumeConnect)
        #expect(
            machine.closeRequested(.init(code: 1000, reason: "shutdown", immediate: false))
                == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        #expect(machine.destroyed() == .finish(WebSocketCloseInfo(code: 1000, reason: "shutdown", byPeer: false)))
        #expect(machine.destroyed() == .ignore)
        #expect(machine.closed() == .ignore)
    }
}
