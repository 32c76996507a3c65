import Synchronization

/// Hands a stream's bus subscription from its setup task to the stream, whichever of the two finishes first.
///
/// The setup runs in a task and may end after the socket closed (a setup waiting for Redis while the app gave
/// up and reconnected): the socket's handler has then gone, with nobody left to cancel the subscription, and its
/// listener, pump task and Redis channel would stay for good. Whoever comes second cancels it.
final class SubscriptionHandoff: Sendable {
    private enum State {
        case settingUp
        case handedOver(BusSubscription)
        case closed
    }

    private let state = Mutex<State>(.settingUp)

    /// The setup is done: the subscription is kept for the stream, or cancelled at once when the stream already
    /// closed. Returns false in that case.
    @discardableResult
    func handOver(_ subscription: BusSubscription) async -> Bool {
        let kept = state.withLock { state -> Bool in
            guard case .settingUp = state else { return false }
            state = .handedOver(subscription)
            return true
        }
        if !kept { await subscription.cancel() }
        return kept
    }

    /// The stream closed: a subscription handed over is cancelled now, one still being set up when it is.
    func close() async {
        let subscription = state.withLock { state -> BusSubscription? in
            defer { state = .closed }
            if case .handedOver(let subscription) = state { return subscription }
            return nil
        }
        await subscription?.cancel()
    }
}
