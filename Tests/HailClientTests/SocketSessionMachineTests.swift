import Foundation
import Testing

@testable import HailClient

@Suite("The URLSession socket's decisions, without a socket")
struct SocketSessionMachineTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test func resumingIsNotConnectingTheServersFirstFrameIs() {
        var machine = SocketSessionMachine(resumedAt: start)
        #expect(machine.phase == .opening)
        #expect(machine.tick(at: at(9.999)) == .none)
        #expect(machine.frameReceived(at: at(0.4)) == .opened)
        #expect(machine.phase == .open)
        #expect(machine.frameReceived(at: at(0.5)) == .none)
    }

    @Test func aServerThatNeverSpeaksFailsTheAttemptAtTenSeconds() {
        var machine = SocketSessionMachine(resumedAt: start)
        #expect(machine.nextDeadline == at(10))
        #expect(machine.tick(at: at(9.999)) == .none)
        #expect(machine.tick(at: at(10)) == .failOpening(reason: "the server did not answer within 10 s"))
        #expect(machine.phase == .ended(SocketClose(code: 1006, reason: "no answer")))
        #expect(machine.nextDeadline == nil)
        #expect(machine.frameReceived(at: at(11)) == .none)
    }

    @Test func aConnectionRefusedBeforeTheServerSpokeFailsTheAttempt() {
        var machine = SocketSessionMachine(resumedAt: start)
        #expect(
            machine.receiveFailed(closeCode: 0, reason: "", error: "connection refused")
                == .failOpening(reason: "connection refused"))
    }

    @Test func silencePingsAtTwentySecondsAndDropsWith1006AtSixty() {
        var machine = SocketSessionMachine(resumedAt: start)
        _ = machine.frameReceived(at: at(1))
        #expect(machine.nextDeadline == at(21))
        #expect(machine.tick(at: at(20.999)) == .none)
        #expect(machine.tick(at: at(21)) == .ping)
        // One ping per silence; the next deadline is the drop.
        #expect(machine.tick(at: at(30)) == .none)
        #expect(machine.nextDeadline == at(61))
        #expect(
            machine.tick(at: at(61))
                == .end(SocketClose(code: 1006, reason: "nothing heard for 60 s"), cancelTask: true))
        #expect(machine.phase == .ended(SocketClose(code: 1006, reason: "nothing heard for 60 s")))
    }

    @Test func aPongKeepsTheConnectionAndRestartsTheSilence() {
        var machine = SocketSessionMachine(resumedAt: start)
        _ = machine.frameReceived(at: at(1))
        #expect(machine.tick(at: at(21)) == .ping)
        #expect(machine.pongReceived(at: at(21.3)) == .none)
        #expect(machine.nextDeadline == at(41.3))
        #expect(machine.tick(at: at(61)) == .ping)
        #expect(machine.phase == .open)
    }

    @Test func aPongNeverOpensTheStream() {
        var machine = SocketSessionMachine(resumedAt: start)
        #expect(machine.pongReceived(at: at(1)) == .none)
        #expect(machine.phase == .opening)
    }

    @Test func aDropWithoutACloseFrameIs1006AndThePeersCodeIsKept() {
        var dropped = SocketSessionMachine(resumedAt: start)
        _ = dropped.frameReceived(at: at(1))
        #expect(
            dropped.receiveFailed(closeCode: 0, reason: "", error: "The network connection was lost.")
                == .end(SocketClose(code: 1006, reason: ""), cancelTask: false))

        var closed = SocketSessionMachine(resumedAt: start)
        _ = closed.frameReceived(at: at(1))
        #expect(
            closed.receiveFailed(closeCode: 4001, reason: "token expired", error: "closed")
                == .end(SocketClose(code: 4001, reason: "token expired"), cancelTask: false))
    }

    @Test func theAppsOwnCloseEndsOnceWithItsCode() {
        var machine = SocketSessionMachine(resumedAt: start)
        _ = machine.frameReceived(at: at(1))
        #expect(
            machine.closeRequested(code: 1000, reason: "bye")
                == .end(SocketClose(code: 1000, reason: "bye"), cancelTask: true))
        #expect(machine.closeRequested(code: 1000, reason: "again") == .none)
        #expect(machine.tick(at: at(100)) == .none)
    }
}
