/// Why a benchmark did not run: options it cannot take (a usage mistake, which `hail bench` answers with exit
/// status 64 and its usage) or a run that could not happen (a server that would not start, nobody answering:
/// exit status 1).
public struct BenchError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidOption
            case couldNotRun
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The options given cannot be run: the message says which and what to give instead.
        public static let invalidOption = Code(.invalidOption)
        /// The run could not happen or finish on this machine.
        public static let couldNotRun = Code(.couldNotRun)

        /// The code's name.
        public var description: String {
            switch base {
            case .invalidOption: "invalidOption"
            case .couldNotRun: "couldNotRun"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, in words a user can act on.
    public let description: String

    /// A run that could not happen, saying why.
    public init(_ description: String) {
        code = .couldNotRun
        self.description = description
    }

    private init(code: Code, description: String) {
        self.code = code
        self.description = description
    }

    /// Options that cannot be run, saying what to give instead.
    public static func invalidOption(_ description: String) -> BenchError {
        BenchError(code: .invalidOption, description: description)
    }
}
