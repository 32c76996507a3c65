/// Why a `ThreadPool` did not run a job, or its caller stopped waiting for one.
public struct ThreadPoolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case full, timedOut
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The queue held its capacity of jobs: the job was refused and never runs.
        public static let full = Code(.full)
        /// The job did not finish within its deadline: its caller stopped waiting, and its result, if it ever
        /// comes, is dropped (a job still queued then never runs).
        public static let timedOut = Code(.timedOut)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What happened.
    public let code: Code
    /// The pool's name and what it waited for.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// A refusal by the queue of `pool`, full at `capacity` jobs.
    public static func full(_ pool: String, capacity: Int) -> ThreadPoolError {
        ThreadPoolError(.full, "\(pool): \(capacity) jobs already wait for its connections")
    }

    /// A caller of `pool` that stopped waiting after `deadline`.
    public static func timedOut(_ pool: String, after deadline: Duration) -> ThreadPoolError {
        ThreadPoolError(.timedOut, "\(pool): no answer within \(deadline.secondsText) s")
    }
}

extension Duration {
    /// The duration in seconds, with up to three decimals and no trailing zeros ("2", "0.25").
    public var secondsText: String {
        let millis = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        let whole = millis / 1000
        let fraction = millis % 1000
        guard fraction != 0 else { return "\(whole)" }
        var digits = String(fraction + 1000).dropFirst()
        while digits.last == "0" { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}
