import Foundation
import Synchronization

/// Puts one client's `NetworkConditions` between its runtime and its real transport: requests are
/// delayed, lost or answered into the void; streams are delayed in order, stalled, broken, and now and
/// then deliver a frame twice or two frames swapped. On the perfect profile it adds nothing.
struct FaultInjector: Sendable {
    let conditions: NetworkConditions
    /// False on the perfect profile: calls go straight through.
    let isActive: Bool

    init(conditions: NetworkConditions) {
        self.conditions = conditions
        isActive = conditions.profile != .perfect || conditions.pressable
    }

    /// Why a call got no answer, as the app's transport would say it.
    struct NoAnswer: Error, CustomStringConvertible {
        let description: String
    }

    /// One request: out after the one-way latency, its answer back after another; in a dead zone or when
    /// lost it fails after the profile's timeout. The server's own errors pass through.
    func request<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        guard isActive else { return try await work() }
        if conditions.profile.tcp != nil { return try await tcpRequest(work) }
        let profile = conditions.profile
        let sent = conditions.now
        let fate = await conditions.fate()
        let out = await conditions.oneWay()
        if await conditions.deadZoneEnd(at: sent) != nil || fate == .requestLost {
            try await conditions.sleep(until: sent + profile.timeout)
            throw NoAnswer(description: "the request timed out (no network)")
        }
        try await conditions.sleep(until: sent + out)
        let value = try await work()
        let back = await conditions.oneWay()
        let answered = conditions.now
        if await conditions.deadZoneEnd(at: answered) != nil || fate == .answerLost {
            try await conditions.sleep(until: max(answered, sent + profile.timeout))
            throw NoAnswer(description: "the answer never arrived (lost on the way back)")
        }
        try await conditions.sleep(until: answered + back)
        return value
    }

    /// One request on a measured TCP link: each leg takes half a round trip and, when its packet is lost, the
    /// retransmission wait; the app gives up after the profile's timeout, and its next request opens a new
    /// connection. A request whose retransmission comes too late never reached the server.
    private func tcpRequest<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        let timeout = conditions.profile.timeout
        let sent = conditions.now
        let (out, back) = await conditions.requestLegs()
        if await conditions.deadZoneEnd(at: sent) != nil || out >= timeout {
            try await conditions.sleep(until: sent + timeout)
            await conditions.requestTimedOut()
            throw NoAnswer(description: "the request timed out (a lost packet not retransmitted in time)")
        }
        try await conditions.sleep(until: sent + out)
        let value = try await work()
        let answered = conditions.now
        if await conditions.deadZoneEnd(at: answered) != nil || answered + back >= sent + timeout {
            try await conditions.sleep(until: max(answered, sent + timeout))
            await conditions.requestTimedOut()
            throw NoAnswer(description: "the answer did not arrive in time (lost on the way back)")
        }
        try await conditions.sleep(until: answered + back)
        return value
    }

    /// Opening a stream: the handshake takes a round trip, and fails after a timeout in a dead zone or, on a
    /// measured TCP link, when a lost handshake packet is retransmitted only after it.
    func open<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        guard isActive else { return try await work() }
        let started = conditions.now
        if await conditions.deadZoneEnd(at: started) != nil {
            try await conditions.sleep(until: started + conditions.profile.timeout)
            throw NoAnswer(description: "the connection timed out (no network)")
        }
        let roundTrip = await conditions.handshake()
        if conditions.profile.tcp != nil, roundTrip >= conditions.profile.timeout {
            try await conditions.sleep(until: started + conditions.profile.timeout)
            throw NoAnswer(description: "the connection timed out (a lost handshake packet)")
        }
        try await conditions.sleep(until: started + roundTrip)
        return try await work()
    }

    private enum Item<Element: Sendable>: Sendable {
        case element(Element, at: Double)
        case end((any Error)?, at: Double)
    }

    /// The frames of `inner` as the client receives them. The stream breaks (throwing) when the profile
    /// drops it or a dead zone begins; `close` then closes the real connection so the server sees it go.
    /// Only frames for which `reorderable` is true are ever held behind the next.
    func stream<Element: Sendable>(
        _ inner: AsyncThrowingStream<Element, any Error>, reorderable: @escaping @Sendable (Element) -> Bool,
        close: @escaping @Sendable () async -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        guard isActive else { return inner }
        let conditions = conditions
        let (output, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let task = Task {
            let opened = conditions.now
            var breaksAt = Double.infinity
            if let drop = await conditions.timeToDrop() { breaksAt = opened + drop }
            // A dead zone that began during the handshake breaks the stream at once: `open` only looked at
            // its start, and a stream living through a dead zone would keep the app believing it is up.
            if await conditions.deadZoneEnd(at: opened) != nil {
                breaksAt = opened
            } else if let dead = await conditions.nextDeadZone(after: opened) {
                breaksAt = min(breaksAt, dead)
            }
            let (timed, timedContinuation) = AsyncStream<Item<Element>>.makeStream()
            // Stamps each frame with its delivery time as it arrives; delivery keeps the order (TCP).
            let reader = Task {
                var last = opened
                do {
                    for try await element in inner {
                        var at = max(last, conditions.now + (await conditions.frameDelay()))
                        if let stall = await conditions.stallEnd(at: conditions.now) { at = max(at, stall) }
                        last = at
                        timedContinuation.yield(.element(element, at: at))
                    }
                    timedContinuation.yield(.end(nil, at: last))
                } catch {
                    timedContinuation.yield(.end(error, at: last))
                }
                timedContinuation.finish()
            }
            // The real connection closes before the app hears of the break, so a quick reconnect is never
            // the one closed. Called by the breaker on time, or by the delivery below when it reaches a
            // frame due after the break first (the breaker is cancelled on the way out, and a break that
            // nobody finishes would leave the app waiting on a stream that never ends).
            let broken = Mutex(false)
            let breakStream: @Sendable () async -> Void = {
                // Once: a second close would hit the socket of a reconnect made in between.
                let first = broken.withLock { state -> Bool in
                    defer { state = true }
                    return !state
                }
                guard first else { return }
                reader.cancel()
                await close()
                continuation.finish(throwing: NoAnswer(description: "the connection broke"))
            }
            let breaksAtFirst = breaksAt
            let breaker = Task {
                if conditions.pressable {
                    // A dead zone may be pressed at any moment: look twice a second.
                    while conditions.now < breaksAtFirst {
                        do {
                            try await conditions.sleep(until: min(breaksAtFirst, conditions.now + 0.5))
                        } catch { return }
                        if await conditions.deadZoneEnd(at: conditions.now) != nil { break }
                    }
                } else {
                    guard breaksAtFirst.isFinite else { return }
                    do { try await conditions.sleep(until: breaksAtFirst) } catch { return }
                }
                await breakStream()
            }
            defer {
                reader.cancel()
                breaker.cancel()
            }
            var held: Element?
            for await item in timed {
                switch item {
                case .element(let element, let at):
                    do { try await conditions.sleep(until: at) } catch { return }
                    guard at < breaksAt else {
                        await breakStream()
                        return
                    }
                    if held == nil, reorderable(element), await conditions.reorders() {
                        held = element
                        continue
                    }
                    continuation.yield(element)
                    if await conditions.duplicates() { continuation.yield(element) }
                    if let swapped = held {
                        continuation.yield(swapped)
                        held = nil
                    }
                case .end(let error, let at):
                    do { try await conditions.sleep(until: at) } catch { return }
                    guard at < breaksAt else {
                        await breakStream()
                        return
                    }
                    if let swapped = held { continuation.yield(swapped) }
                    continuation.finish(throwing: error)
                    return
                }
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return output
    }
}
