/// Who Hail is to Redis: an ACL user and its password (`AUTH user password`), or the password alone of a server
/// with only `requirepass` (`AUTH password`, the `default` user). Sent on every connect, the subscriber's too.
///
/// The password never reaches a log, an error or a `print`: every description of this value shows the user alone.
public struct RedisCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The ACL user; nil: the `default` user (`requirepass`).
    public var username: String?
    /// The password.
    public var password: String

    /// Credentials for `username` (nil: `default`) with `password`.
    public init(username: String?, password: String) {
        self.username = username
        self.password = password
    }

    /// The `AUTH` command's arguments.
    var authCommand: [String] { ["AUTH"] + (username.map { [$0] } ?? []) + [password] }

    /// Who, without the password: `user 'hail'`, or `the default user`.
    public var description: String { username.map { "user '\($0)'" } ?? "the default user" }

    /// As `description`.
    public var debugDescription: String { description }

    /// A mirror without the password, so `dump` and `String(reflecting:)` of an endpoint show none either.
    public var customMirror: Mirror { Mirror(self, children: ["username": username as Any, "password": "***"]) }
}
