import Foundation

/// Reads `Retry-After` (RFC 9110 10.2.3): delay seconds (`2`) or an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
public struct RetryAfterHeader: Sendable {
    /// The seconds to wait from `now` that `value` asks for, never negative; nil when it is absent or unreadable.
    public static func seconds(_ value: String?, now: Date) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            return TimeInterval(text)
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
