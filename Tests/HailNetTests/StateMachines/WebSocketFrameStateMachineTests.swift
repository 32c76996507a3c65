import Testing

@testable import HailNet

/// Every event of `WebSocketFrameStateMachine` in the states where it matters.
@Suite struct WebSocketFrameStateMachineTests {
    /// The machine under test.
    typealias Machine = WebSocketFrameStateMachine
    /// The instant the connection is established; every other time is an offset from it.
    let start = ContinuousClock.now
    /// The keepalive ping's payload.
    let hail = Array("hail".utf8)

    /// Pings after 20 s of quiet, drops after 60 s; messages up to 10 bytes.
    func machine(pingSeconds: Int = 20) -> Machine {
        Machine(maxMessageBytes: 10, keepalive: Keepalive(pingSeconds: pingSeconds, idleSeconds: 60), now: start)
    }

    /// An outbound queue holding these messages.
    func queue(essential: [SharedMessage] = [], disposable: [SharedMessage] = []) -> OutboundQueue {
        var queue = OutboundQueue(essentialLimit: 8, disposableLimit: 8)
        for message in essential { #expect(queue.enqueue(message, priority: .essential) == .queued) }
        for message in disposable { #expect(queue.enqueue(message, priority: .disposable) == .queued) }
        return queue
    }

    /// A close request.
    func close(_ code: UInt16, _ reason: String, immediate: Bool = false) -> Machine.CloseRequest {
        Machine.CloseRequest(code: code, reason: reason, immediate: immediate)
    }

    /// Moves the machine into the closing state with a 1009 by receiving an oversized message.
    func closeWithTooBig(_ machine: inout Machine) {
        #expect(
            machine.received(byteCount: 11, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .closeNow(code: 1009, reason: "message larger than 10 bytes"))
    }

    // MARK: receive

    @Test func singleFragmentMessageIsDeliveredWhole() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 5, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverWhole(.text))
        #expect(
            machine.received(byteCount: 3, kind: .binary, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverWhole(.binary))
    }

    @Test func fragmentsAreAssembledAndTheFirstSetsTheKind() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 3, kind: .binary, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 2, kind: .text, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 1, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverAssembled(.binary))
        // The next message starts afresh.
        #expect(
            machine.received(byteCount: 2, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverWhole(.text))
    }

    @Test func finalFragmentWithPayloadLeftWaitsForTheRest() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 4, kind: .text, isFinalFragment: true, remainingPayload: 6, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 6, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverAssembled(.text))
    }

    @Test func emptyFirstChunkStillMakesAnAssembledMessage() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 0, kind: .binary, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 4, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverAssembled(.binary))
    }

    @Test func messageOfExactlyTheLimitIsDelivered() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 6, kind: .text, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 4, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverAssembled(.text))
    }

    @Test func messageGrowingOverTheLimitClosesWith1009AndStopsReadingAndWriting() {
        var machine = machine()
        #expect(
            machine.received(byteCount: 6, kind: .text, isFinalFragment: false, remainingPayload: 0, now: start)
                == .append)
        #expect(
            machine.received(byteCount: 5, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .closeNow(code: 1009, reason: "message larger than 10 bytes"))
        #expect(
            machine.received(byteCount: 1, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .ignore)
        // A writable callback lws still makes closes again instead of writing what was queued.
        var pending = queue(essential: [SharedMessage(text: "late")])
        #expect(
            machine.writable(queue: &pending, pendingClose: nil)
                == .closeNow(code: 1009, reason: "message larger than 10 bytes"))
        #expect(pending.essentialCount == 1)
        #expect(
            machine.closed()
                == .finish(WebSocketCloseInfo(code: 1009, reason: "message larger than 10 bytes", byPeer: false)))
    }

    @Test func singleChunkOverTheLimitClosesWith1009() {
        var machine = machine()
        closeWithTooBig(&machine)
    }

    // MARK: write

    @Test func queuedMessagesGoOutOnePerCallbackEssentialFirst() {
        var machine = machine()
        let essential = SharedMessage(text: "e")
        let disposable = SharedMessage(binary: [1])
        var pending = queue(essential: [essential], disposable: [disposable])
        #expect(
            machine.writable(queue: &pending, pendingClose: nil)
                == .writeMessage(essential, thenRequestWritable: true))
        #expect(
            machine.writable(queue: &pending, pendingClose: nil)
                == .writeMessage(disposable, thenRequestWritable: false))
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .idle)
    }

    @Test func writeActionsCompareMessagesByIdentity() {
        let message = SharedMessage(text: "same")
        let twin = SharedMessage(text: "same")
        #expect(
            Machine.WriteAction.writeMessage(message, thenRequestWritable: false)
                != .writeMessage(twin, thenRequestWritable: false))
    }

    @Test func duePingGoesBeforeQueuedMessages() {
        var machine = machine()
        let message = SharedMessage(text: "queued")
        var pending = queue(essential: [message])
        #expect(machine.keepaliveTick(now: start + .seconds(20), hasPendingWrites: true) == .requestWritable)
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .writePing(hail, thenRequestWritable: true))
        #expect(
            machine.writable(queue: &pending, pendingClose: nil)
                == .writeMessage(message, thenRequestWritable: false))
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .idle)
    }

    @Test func pingAloneAsksForNoFurtherCallback() {
        var machine = machine()
        var pending = queue()
        #expect(machine.keepaliveTick(now: start + .seconds(25), hasPendingWrites: false) == .requestWritable)
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .writePing(hail, thenRequestWritable: false))
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .idle)
    }

    @Test func pingBeforeAPendingCloseAsksForTheCloseCallback() {
        var machine = machine()
        var pending = queue()
        #expect(machine.keepaliveTick(now: start + .seconds(20), hasPendingWrites: false) == .requestWritable)
        #expect(
            machine.writable(queue: &pending, pendingClose: close(1000, "bye"))
                == .writePing(hail, thenRequestWritable: true))
        #expect(
            machine.writable(queue: &pending, pendingClose: close(1000, "bye")) == .closeNow(code: 1000, reason: "bye"))
    }

    @Test func closeFlushesEssentialMessagesOnlyThenCloses() {
        var machine = machine()
        let first = SharedMessage(text: "e1")
        let second = SharedMessage(text: "e2")
        var pending = queue(essential: [first, second], disposable: [SharedMessage(text: "d1")])
        let bye = close(1000, "bye")
        #expect(
            machine.writable(queue: &pending, pendingClose: bye)
                == .writeMessage(first, thenRequestWritable: true))
        #expect(
            machine.writable(queue: &pending, pendingClose: bye)
                == .writeMessage(second, thenRequestWritable: true))
        #expect(pending.disposableCount == 1)
        #expect(machine.writable(queue: &pending, pendingClose: bye) == .closeNow(code: 1000, reason: "bye"))
        #expect(pending.isEmpty)
        // lws calls back again while it waits for the peer's close: each callback ends the wait.
        #expect(machine.writable(queue: &pending, pendingClose: bye) == .closeNow(code: 1000, reason: "bye"))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1000, reason: "bye", byPeer: false)))
        #expect(machine.writable(queue: &pending, pendingClose: bye) == .idle)
    }

    @Test func immediateCloseSkipsTheFlush() {
        var machine = machine()
        var pending = queue(essential: [SharedMessage(text: "e1")], disposable: [SharedMessage(text: "d1")])
        #expect(
            machine.writable(queue: &pending, pendingClose: close(4009, "slow consumer", immediate: true))
                == .closeNow(code: 4009, reason: "slow consumer"))
        #expect(pending.isEmpty)
    }

    @Test func closeReasonIsCutToFitACloseFrameWithoutSplittingACharacter() {
        var machine = machine()
        var pending = queue()
        let long = String(repeating: "é", count: 70)
        let kept = String(repeating: "é", count: 61)
        #expect(
            machine.writable(queue: &pending, pendingClose: close(4000, long)) == .closeNow(code: 4000, reason: kept))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 4000, reason: kept, byPeer: false)))
        #expect(Machine.fittedCloseReason(String(repeating: "a", count: 200)) == String(repeating: "a", count: 123))
        #expect(Machine.fittedCloseReason("short") == "short")
    }

    // MARK: write and close requests

    @Test func writeRequestAsksForAWritableCallback() {
        var machine = machine()
        #expect(machine.writeRequested() == .requestWritable)
        #expect(machine.writeRequested() == .requestWritable)
    }

    @Test func closeRequestArmsTheFiveSecondKillTimerOnce() {
        var machine = machine()
        #expect(machine.closeRequested(close(1000, "done")) == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        #expect(machine.closeRequested(close(1000, "done")) == .requestWritable)
        #expect(machine.closeRequested(close(4009, "slow consumer", immediate: true)) == .requestWritable)
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1000, reason: "done", byPeer: false)))
    }

    @Test func immediateCloseRequestArmsTheOneSecondKillTimerOnce() {
        var machine = machine()
        #expect(
            machine.closeRequested(close(4009, "slow consumer", immediate: true))
                == .requestWritableAndArmKillTimer(killAfter: .seconds(1)))
        #expect(machine.closeRequested(close(4009, "slow consumer", immediate: true)) == .requestWritable)
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 4009, reason: "slow consumer", byPeer: false)))
    }

    @Test func sentCloseFrameReplacesTheRecordedCloseRequest() {
        var machine = machine()
        var pending = queue()
        let long = String(repeating: "x", count: 130)
        #expect(machine.closeRequested(close(4001, long)) == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        let kept = String(repeating: "x", count: 123)
        #expect(
            machine.writable(queue: &pending, pendingClose: close(4001, long)) == .closeNow(code: 4001, reason: kept))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 4001, reason: kept, byPeer: false)))
    }

    @Test func requestsAfterTheCloseFrameWentOutOnlyAskForTheCallbackThatEndsTheConnection() {
        var machine = machine()
        closeWithTooBig(&machine)
        #expect(machine.writeRequested() == .requestWritable)
        // Neither recorded nor timed: the close frame that went out is what the connection reports.
        #expect(machine.closeRequested(close(1000, "")) == .requestWritable)
        // Neither pinged nor dropped by the keepalive, only asked for the callback while writes are scheduled.
        #expect(machine.keepaliveTick(now: start + .seconds(100), hasPendingWrites: true) == .requestWritable)
        #expect(machine.keepaliveTick(now: start + .seconds(100), hasPendingWrites: false) == .ignore)
        var pending = queue()
        #expect(
            machine.writable(queue: &pending, pendingClose: close(1000, ""))
                == .closeNow(code: 1009, reason: "message larger than 10 bytes"))
        #expect(
            machine.closed()
                == .finish(WebSocketCloseInfo(code: 1009, reason: "message larger than 10 bytes", byPeer: false)))
    }

    // MARK: peer close and end

    @Test func peerCloseFrameGivesCodeAndReason() {
        var machine = machine()
        machine.peerClosed(payload: [0x03, 0xE9] + Array("going away".utf8))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1001, reason: "going away", byPeer: true)))
    }

    @Test func peerCloseFrameWithOnlyACodeHasAnEmptyReason() {
        var machine = machine()
        machine.peerClosed(payload: [0x0F, 0xA1])
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 4001, reason: "", byPeer: true)))
    }

    @Test func shortPeerCloseFrameMeans1005() {
        var one = machine()
        one.peerClosed(payload: [0x03])
        #expect(one.closed() == .finish(WebSocketCloseInfo(code: 1005, reason: "", byPeer: true)))
        var empty = machine()
        empty.peerClosed(payload: [UInt8]())
        #expect(empty.closed() == .finish(WebSocketCloseInfo(code: 1005, reason: "", byPeer: true)))
    }

    @Test func peerCloseTakesPrecedenceOverOurRequestedClose() {
        var machine = machine()
        #expect(machine.closeRequested(close(1000, "bye")) == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        machine.peerClosed(payload: [0x03, 0xE8] + Array("ok".utf8))
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1000, reason: "ok", byPeer: true)))
    }

    @Test func peerCloseTakesPrecedenceOverOurSentCloseFrame() {
        var machine = machine()
        closeWithTooBig(&machine)
        machine.peerClosed(payload: [0x03, 0xF1])
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1009, reason: "", byPeer: true)))
    }

    @Test func connectionLostWithoutAnyCloseIs1006() {
        var machine = machine()
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1006, reason: "connection lost", byPeer: false)))
    }

    @Test func connectionFinishesOnlyOnce() {
        var machine = machine()
        machine.peerClosed(payload: [0x03, 0xE8])
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1000, reason: "", byPeer: true)))
        #expect(machine.closed() == .ignore)
        machine.peerClosed(payload: [0x03, 0xE9])
        #expect(machine.closed() == .ignore)
    }

    @Test func everyEventIsIgnoredOnceClosed() {
        var machine = machine()
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1006, reason: "connection lost", byPeer: false)))
        #expect(
            machine.received(byteCount: 1, kind: .text, isFinalFragment: true, remainingPayload: 0, now: start)
                == .ignore)
        var pending = queue(essential: [SharedMessage(text: "e")])
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .idle)
        #expect(machine.writeRequested() == .ignore)
        #expect(machine.closeRequested(close(1000, "")) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(100), hasPendingWrites: true) == .ignore)
        #expect(machine.pauseReading() == .ignore)
        #expect(machine.resumeReading() == .ignore)
    }

    // MARK: keepalive

    @Test func quietConnectionIsPingedAndOtherwiseOnlyReArmedForPendingWrites() {
        var machine = machine()
        #expect(machine.keepaliveTick(now: start + .seconds(19), hasPendingWrites: false) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(19), hasPendingWrites: true) == .requestWritable)
        var pending = queue()
        // No ping is due yet, so the re-armed callback has nothing of the machine's own to write.
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .idle)
        #expect(machine.keepaliveTick(now: start + .seconds(20), hasPendingWrites: false) == .requestWritable)
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .writePing(hail, thenRequestWritable: false))
    }

    @Test func idleConnectionIsDroppedOnceWith1006() {
        var machine = machine()
        #expect(machine.keepaliveTick(now: start + .seconds(59), hasPendingWrites: false) == .requestWritable)
        #expect(machine.keepaliveTick(now: start + .seconds(60), hasPendingWrites: true) == .dropConnection)
        #expect(machine.keepaliveTick(now: start + .seconds(61), hasPendingWrites: true) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(120), hasPendingWrites: false) == .ignore)
        // The drop armed the kill timer; a later close request does not arm another.
        #expect(machine.closeRequested(close(1000, "")) == .requestWritable)
        #expect(
            machine.closed()
                == .finish(WebSocketCloseInfo(code: 1006, reason: "no traffic or pong for 60.0 seconds", byPeer: false))
        )
    }

    @Test func idleConnectionWithACloseUnderWayIsLeftToItsKillTimer() {
        var machine = machine()
        #expect(machine.closeRequested(close(1000, "bye")) == .requestWritableAndArmKillTimer(killAfter: .seconds(5)))
        #expect(machine.keepaliveTick(now: start + .seconds(60), hasPendingWrites: true) == .ignore)
        #expect(machine.closed() == .finish(WebSocketCloseInfo(code: 1000, reason: "bye", byPeer: false)))
    }

    @Test func pongResetsTheQuietTime() {
        var machine = machine()
        machine.heard(now: start + .seconds(50))
        #expect(machine.keepaliveTick(now: start + .seconds(60), hasPendingWrites: false) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(70), hasPendingWrites: false) == .requestWritable)
        #expect(machine.keepaliveTick(now: start + .seconds(110), hasPendingWrites: false) == .dropConnection)
    }

    @Test func anyReceivedChunkResetsTheQuietTime() {
        var machine = machine()
        #expect(
            machine.received(
                byteCount: 1, kind: .text, isFinalFragment: false, remainingPayload: 0, now: start + .seconds(55))
                == .append)
        #expect(machine.keepaliveTick(now: start + .seconds(60), hasPendingWrites: false) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(75), hasPendingWrites: false) == .requestWritable)
    }

    @Test func disabledKeepaliveNeverPingsNorDrops() {
        var machine = machine(pingSeconds: 0)
        #expect(machine.keepaliveTick(now: start + .seconds(10_000), hasPendingWrites: false) == .ignore)
        #expect(machine.keepaliveTick(now: start + .seconds(10_000), hasPendingWrites: true) == .requestWritable)
        var pending = queue()
        #expect(machine.writable(queue: &pending, pendingClose: nil) == .idle)
    }

    // MARK: read back-pressure

    @Test func pauseAndResumeCallFlowControlOnlyOnChange() {
        var machine = machine()
        #expect(!machine.isReadingPaused)
        #expect(machine.resumeReading() == .ignore)
        #expect(machine.pauseReading() == .stopReceiving)
        #expect(machine.pauseReading() == .ignore)
        #expect(machine.isReadingPaused)
        #expect(machine.resumeReading() == .resumeReceiving)
        #expect(machine.resumeReading() == .ignore)
        #expect(!machine.isReadingPaused)
        #expect(machine.pauseReading() == .stopReceiving)
    }

    @Test func readingCanBeResumedWhileClosing() {
        var machine = machine()
        #expect(machine.pauseReading() == .stopReceiving)
        closeWithTooBig(&machine)
        #expect(machine.resumeReading() == .resumeReceiving)
        #expect(machine.pauseReading() == .stopReceiving)
    }

    @Test func pausedReadingStillAssemblesWhatLwsDelivers() {
        var machine = machine()
        #expect(machine.pauseReading() == .stopReceiving)
        #expect(
            machine.received(byteCount: 2, kind: .binary, isFinalFragment: true, remainingPayload: 0, now: start)
                == .deliverWhole(.binary))
    }
}
