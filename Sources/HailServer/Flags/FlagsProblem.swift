/// One thing wrong with a flags file: where (the line, and the field as a path such as `cohorts[2].flags.etaSource`)
/// and what to fix.
public struct FlagsProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line (from 1) the problem is on, nil when it is about the file as a whole.
    public var line: Int?
    /// The field's path, empty for the file's syntax or its root.
    public var field: String
    /// What is wrong, as a sentence an operator can act on.
    public var message: String

    /// Creates a problem.
    public init(line: Int?, field: String, message: String) {
        self.line = line
        self.field = field
        self.message = message
    }

    /// `line 12: cohorts[0].match.role: must be rider or driver, not "admin"`.
    public var description: String {
        let place = line.map { "line \($0): " } ?? ""
        return field.isEmpty ? "\(place)\(message)" : "\(place)\(field): \(message)"
    }
}

/// Why a flags file was not taken: every problem found, in the file's order.
public struct FlagsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as given.
    public var path: String
    /// The problems, at least one.
    public var problems: [FlagsProblem]

    /// Creates the error.
    public init(path: String, problems: [FlagsProblem]) {
        self.path = path
        self.problems = problems
    }

    /// `flags file hail-flags.json: line 3: regions[0].north: ...; line 9: ...`, one line for a log.
    public var description: String {
        "flags file \(path): " + problems.map(\.description).joined(separator: "; ")
    }
}
