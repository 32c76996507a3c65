import Foundation

/// `--name value` options and `--flag`s of one command, with errors that say what to fix.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` against the options (taking a value) and flags the command knows.
    init(_ arguments: [String], options: Set<String>, flags knownFlags: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if knownFlags.contains(argument) {
                flags.insert(argument)
            } else if options.contains(argument) {
                guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                values[argument] = arguments[index + 1]
                index += 1
            } else {
                throw UsageError("unknown option '\(argument)'")
            }
            index += 1
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }
}

/// Why a command stopped: a mistake on the command line (printed with the command's usage, exit status 64), a
/// file named on it whose content is wrong (a flags file: every problem with its line, exit status 65, EX_DATAERR),
/// or a run that could not happen with options that were fine (a database that does not exist, a port taken: the
/// message alone, exit status 1). Only the first gets the usage, which would bury the reason of the others.
struct UsageError: Error {
    let message: String
    /// True for a mistake in the options, which the usage helps to fix.
    let isUsage: Bool
    /// The exit status when it is not a usage mistake.
    let status: Int32

    init(_ message: String) {
        self.message = message
        isUsage = true
        status = 64
    }

    /// A run that could not happen, although its options were well formed.
    static func failed(_ message: String) -> UsageError { UsageError(message, isUsage: false, status: 1) }

    /// A file the options name whose content must be fixed.
    static func invalidData(_ message: String) -> UsageError { UsageError(message, isUsage: false, status: 65) }

    private init(_ message: String, isUsage: Bool, status: Int32) {
        self.message = message
        self.isUsage = isUsage
        self.status = status
    }
}
