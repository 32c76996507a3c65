import Foundation

/// What to do about one APNs answer. Pure: the runtime carries it out.
public enum APNsAction: Sendable, Hashable {
    /// Accepted (200).
    case delivered
    /// The token is dead (410 `Unregistered`, 400 `BadDeviceToken`): forget it, never send to it again.
    case forgetToken(reason: String)
    /// The provider token expired (403 `ExpiredProviderToken`): renew it and send once more.
    case renewProviderTokenAndRetry
    /// APNs is busy or failing (429, 5xx, no answer): send again after this many seconds.
    case retry(after: TimeInterval)
    /// Refused for a reason a retry will not change, or out of attempts: count it and drop the push.
    case giveUp(reason: String)
}

/// Classifies APNs answers (status and `reason`) into actions, with the bounded backoff for retries.
public enum APNsAnswer {
    /// Attempts per push for 429, 5xx and transport failures (the first included).
    public static let maximumAttempts = 4
    /// The wait before the second attempt; each later one doubles it.
    public static let firstRetryDelay: TimeInterval = 1
    /// The longest wait between attempts.
    public static let maximumRetryDelay: TimeInterval = 8

    /// The action for `status` (0: no answer, the connection failed) with `reason` from the JSON body, on the
    /// `attempt`-th try (from 1); `renewedProviderToken` is true once this push has already renewed the JWT.
    public static func action(status: Int, reason: String?, attempt: Int, renewedProviderToken: Bool) -> APNsAction {
        switch (status, reason) {
        case (200, _):
            return .delivered
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .forgetToken(reason: reason ?? "Unregistered")
        case (403, "ExpiredProviderToken"):
            return renewedProviderToken ? .giveUp(reason: "ExpiredProviderToken") : .renewProviderTokenAndRetry
        case (429, _), (500...599, _), (0, _):
            guard attempt < maximumAttempts else { return .giveUp(reason: reason ?? describe(status)) }
            return .retry(after: retryDelay(afterAttempt: attempt))
        default:
            return .giveUp(reason: reason ?? describe(status))
        }
    }

    /// The wait after failed attempt `attempt`: 1 s, 2 s, 4 s, ... capped at `maximumRetryDelay`.
    public static func retryDelay(afterAttempt attempt: Int) -> TimeInterval {
        min(maximumRetryDelay, firstRetryDelay * pow(2, Double(max(0, attempt - 1))))
    }

    /// The `reason` of an APNs error body (`{"reason":"BadDeviceToken"}`), or nil.
    public static func reason(fromBody body: [UInt8]) -> String? {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }

    /// The metric's `result` label for an action: `delivered`, `token_removed`, `retried`,
    /// `provider_token_renewed` or `failed`.
    public static func result(of action: APNsAction) -> String {
        switch action {
        case .delivered: return "delivered"
        case .forgetToken: return "token_removed"
        case .renewProviderTokenAndRetry: return "provider_token_renewed"
        case .retry: return "retried"
        case .giveUp: return "failed"
        }
    }

    private static func describe(_ status: Int) -> String { status == 0 ? "no answer" : "HTTP \(status)" }
}
