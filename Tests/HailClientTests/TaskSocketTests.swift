import Foundation
import HailAppSeams
import HailTestSupport
import HailTime
import Synchronization
import Testing

@testable import HailClient

@Suite("The URLSession transport's runtime on a double of URLSessionWebSocketTask")
struct TaskSocketTests {
    private let clock = ManualClock()
    private let task = FakeWebSocketTask()
    private var timeline: Timeline { Timeline(clock: clock, origin: Date(timeIntervalSince1970: 1_800_000_000)) }
    private let hello = SocketFrame.text(#"{"type":"hello"}"#)

    @Test func openReturnsAtTheServersHelloNotAtResume() async throws {
        let socket = TaskSocket(task: task, timeline: timeline)
        let opened = Mutex(false)
        let opening = Task {
            try await socket.open()
            opened.withLock { $0 = true }
        }
        // The open-timeout watch is asleep: resume() has returned and the attempt is under way.
        await clock.sleepers(atLeast: 1)
        #expect(task.resumed)
        #expect(opened.withLock { $0 } == false)
        task.deliver(hello)
        try await opening.value
        var frames = socket.frames.makeAsyncIterator()
        #expect(await frames.next() == hello)
    }

    @Test func aServerThatNeverAnswersFailsTheAttemptAtTenSeconds() async {
        let socket = TaskSocket(task: task, timeline: timeline)
        let opening = Task { () async -> CallError? in
            do { try await socket.open() } catch { return error as? CallError }
            return nil
        }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(9_999))
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(1))
        #expect(await opening.value == CallError.noAnswer("the server did not answer within 10 s"))
        #expect(task.closes == [nil])
        #expect(await socket.closed() == SocketClose(code: 1006, reason: "the server did not answer within 10 s"))
    }

    @Test func aConnectionThatFailsBeforeTheHelloFailsTheAttempt() async {
        let socket = TaskSocket(task: task, timeline: timeline)
        task.drop()
        var failure: CallError?
        do { try await socket.open() } catch { failure = error }
        #expect(failure == CallError.noAnswer("FakeSocketError(message: \"The network connection was lost.\")"))
    }

    @Test func aSilentStreamIsPingedAtTwentySecondsAndDroppedWith1006AtSixty() async throws {
        let socket = TaskSocket(task: task, timeline: timeline)
        task.deliver(hello)
        try await socket.open()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(20))
        await clock.sleepers(atLeast: 1)
        #expect(task.pingCount == 1)
        clock.advance(by: .seconds(40))
        #expect(await socket.closed() == SocketClose(code: 1006, reason: "nothing heard for 60 s"))
        #expect(task.closes == [nil])
        #expect(socket.send(.text("late")) == false)
    }

    @Test func anAnsweredPingKeepsTheStreamOpenAndTheNextPingComesTwentySecondsAfterThePong() async throws {
        let socket = TaskSocket(task: task, timeline: timeline)
        task.deliver(hello)
        try await socket.open()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(20))
        await clock.sleepers(atLeast: 1)
        #expect(task.pingCount == 1)
        clock.advance(by: .seconds(1))
        task.answerPings()
        // The pong at 21 s re-arms the timer for 41 s, before the 60 s drop it slept towards.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .milliseconds(19_999))
        #expect(task.pingCount == 1)
        clock.advance(by: .milliseconds(1))
        await clock.sleepers(atLeast: 1)
        #expect(task.pingCount == 2)
        #expect(task.closes == [])
        #expect(socket.send(.text("still here")))
        #expect(task.sent == [.text("still here")])
    }

    @Test func aDroppedConnectionEndsWith1006AndAServerCloseKeepsItsCode() async throws {
        let dropped = TaskSocket(task: task, timeline: timeline)
        task.deliver(hello)
        try await dropped.open()
        task.drop()
        #expect(await dropped.closed() == SocketClose(code: 1006, reason: ""))

        let other = FakeWebSocketTask()
        let closed = TaskSocket(task: other, timeline: timeline)
        other.deliver(hello)
        try await closed.open()
        other.drop(code: 4001, reason: "token expired")
        #expect(await closed.closed() == SocketClose(code: 4001, reason: "token expired"))
    }
}
