/// Commands in Redis's wire form (RESP arrays of bulk strings), written one after another into one buffer.
///
/// A pipelined round is these bytes written to the connection's stream in one write, rather than formatted
/// argument by argument by hiredis: its formatting copied every argument twice and took a C string of each,
/// which under a saturating ingest cost a node more than the socket writes did.
struct RedisCommandEncoder {
    /// The commands written so far.
    private(set) var bytes: [UInt8] = []
    /// How many commands `bytes` holds.
    private(set) var count = 0

    /// An empty buffer with room for about `capacity` bytes.
    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends one command: `*<n>\r\n` then `$<length>\r\n<argument>\r\n` for each argument.
    mutating func append(_ arguments: [String]) {
        append(arguments, then: [])
    }

    /// Appends one command whose arguments are `head` then `tail`, without joining the two arrays.
    mutating func append(_ head: [String], then tail: [String]) {
        beginCommand(arguments: head.count + tail.count)
        for text in head { argument(text) }
        for text in tail { argument(text) }
    }

    /// Starts a command of `arguments` arguments, each to be written by `argument(_:)`, exactly that many.
    mutating func beginCommand(arguments: Int) {
        header("*", arguments)
        count += 1
    }

    /// Writes the next argument of the command begun last.
    mutating func argument(_ argument: String) {
        var argument = argument
        argument.withUTF8 { utf8 in
            header("$", utf8.count)
            bytes.append(contentsOf: utf8)
        }
        bytes.append(contentsOf: Self.lineEnd)
    }

    private static let lineEnd: [UInt8] = [13, 10]

    private mutating func header(_ kind: Character, _ number: Int) {
        bytes.append(kind.asciiValue!)
        appendDecimal(number)
        bytes.append(contentsOf: Self.lineEnd)
    }

    private mutating func appendDecimal(_ number: Int) {
        guard number >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        appendDecimal(number / 10)
        bytes.append(UInt8(ascii: "0") + UInt8(number % 10))
    }
}
