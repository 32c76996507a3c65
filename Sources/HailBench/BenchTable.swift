/// A two-column human-readable report: a title, then aligned `label  value` rows.
struct BenchTable {
    /// The heading line.
    let title: String
    /// Label and value, in order.
    private var rows: [(String, String)] = []

    /// Starts a table headed `title`.
    init(title: String) { self.title = title }

    /// Adds a row.
    mutating func add(_ label: String, _ value: String) { rows.append((label, value)) }

    /// The table as text, labels padded to the longest.
    var text: String {
        let width = rows.map(\.0.count).max() ?? 0
        let body = rows.map { label, value in
            "  " + label + String(repeating: " ", count: width - label.count) + "  " + value
        }
        return ([title] + body).joined(separator: "\n")
    }
}
