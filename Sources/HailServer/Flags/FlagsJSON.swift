/// A JSON value with the line it starts on, so a flags file's problems can name the line as well as the field.
///
/// Foundation's JSON parser keeps no positions, so the flags file has this small reader of its own (RFC 8259:
/// objects, arrays, strings with every escape, numbers, literals). Stricter than JSON in one place: a key twice
/// in one object is an error, since which of the two a setting would take is a guess.
public struct FlagsJSON: Sendable, Hashable {
    /// A member of an object: its key, the key's line, and the value.
    public struct Member: Sendable, Hashable {
        /// The key.
        public var key: String
        /// The line the key is on.
        public var line: Int
        /// The value.
        public var value: FlagsJSON
    }

    /// The value.
    public enum Value: Sendable, Hashable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number.
        case number(Double)
        /// A string.
        case string(String)
        /// An array.
        case array([FlagsJSON])
        /// An object, members in the file's order.
        case object([Member])
    }

    /// The value.
    public var value: Value
    /// The line (from 1) the value starts on.
    public var line: Int

    /// What a value is, for messages: `a string`, `an object`, `null`.
    public var kind: String {
        switch value {
        case .null: return "null"
        case .bool: return "true or false"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Reads `bytes` as one JSON value, or throws the first syntax problem with its line.
    public static func parse(_ bytes: [UInt8]) throws(FlagsProblem) -> FlagsJSON {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.problem("unexpected text after the JSON value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var line = 1

        static let maximumDepth = 64

        init(bytes: [UInt8]) { self.bytes = bytes }

        func problem(_ message: String) -> FlagsProblem {
            FlagsProblem(line: line, field: "", message: message)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\n"): line += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
                default: return
                }
                index += 1
            }
        }

        mutating func value(depth: Int) throws(FlagsProblem) -> FlagsJSON {
            guard depth < Self.maximumDepth else { throw problem("nested deeper than \(Self.maximumDepth) levels") }
            guard index < bytes.count else { throw problem("the file ends where a value should be") }
            let start = line
            switch bytes[index] {
            case UInt8(ascii: "{"): return FlagsJSON(value: .object(try object(depth: depth)), line: start)
            case UInt8(ascii: "["): return FlagsJSON(value: .array(try array(depth: depth)), line: start)
            case UInt8(ascii: "\""): return FlagsJSON(value: .string(try string()), line: start)
            case UInt8(ascii: "t"): try literal("true"); return FlagsJSON(value: .bool(true), line: start)
            case UInt8(ascii: "f"): try literal("false"); return FlagsJSON(value: .bool(false), line: start)
            case UInt8(ascii: "n"): try literal("null"); return FlagsJSON(value: .null, line: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return FlagsJSON(value: .number(try number()), line: start)
            default:
                throw problem("unexpected character '\(Self.show(bytes[index]))' where a value should be")
            }
        }

        mutating func object(depth: Int) throws(FlagsProblem) -> [Member] {
            index += 1
            var members: [Member] = []
            var seen: Set<String> = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return members
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw problem("expected a quoted key")
                }
                let keyLine = line
                let key = try string()
                guard seen.insert(key).inserted else { throw problem("the key \"\(key)\" appears twice") }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw problem("expected ':' after the key \"\(key)\"")
                }
                index += 1
                skipWhitespace()
                members.append(Member(key: key, line: keyLine, value: try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw problem("the file ends inside an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw problem("expected ',' or '}' in an object") }
                index += 1
                return members
            }
        }

        mutating func array(depth: Int) throws(FlagsProblem) -> [FlagsJSON] {
            index += 1
            var elements: [FlagsJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return elements
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw problem("the file ends inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw problem("expected ',' or ']' in an array") }
                index += 1
                return elements
            }
        }

        mutating func literal(_ word: String) throws(FlagsProblem) {
            let expected = Array(word.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw problem("unexpected text where a value should be (did you mean \(word)?)")
            }
            index += expected.count
        }

        mutating func number() throws(FlagsProblem) -> Double {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw problem("a number needs digits") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, Self.isDigit(bytes[index]) else {
                    throw problem("a number needs digits after its '.'")
                }
                while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, Self.isDigit(bytes[index]) else {
                    throw problem("a number needs digits in its exponent")
                }
                while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
                throw problem("the number is out of range")
            }
            return value
        }

        mutating func string() throws(FlagsProblem) -> String {
            index += 1
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let decoded = String(validating: text, as: UTF8.self) else {
                        throw problem("a string is not valid UTF-8")
                    }
                    return decoded
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"): text.append(contentsOf: try unicodeEscape())
                    default: throw problem("unknown escape '\\\(Self.show(escape))' in a string")
                    }
                case 0x00..<0x20:
                    throw problem(
                        byte == 0x0A ? "a string runs past the end of its line" : "a control character in a string")
                default:
                    text.append(byte)
                    index += 1
                }
            }
            throw problem("the file ends inside a string")
        }

        /// The UTF-8 of `\uXXXX` (the `\u` already read), a surrogate pair taking two escapes.
        mutating func unicodeEscape() throws(FlagsProblem) -> [UInt8] {
            let high = try hex4()
            var scalar: Unicode.Scalar?
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw problem("a \\u escape of a high surrogate must be followed by its low surrogate") }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw problem("a \\u surrogate pair is not valid") }
                scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            } else {
                scalar = Unicode.Scalar(high)
            }
            guard let scalar else { throw problem("a \\u escape is not a character") }
            return Array(String(Character(scalar)).utf8)
        }

        mutating func hex4() throws(FlagsProblem) -> UInt32 {
            guard index + 4 <= bytes.count else { throw problem("a \\u escape needs four hex digits") }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw problem("a \\u escape needs four hex digits")
                }
                value = value * 16 + digit
            }
            index += 4
            return value
        }

        static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        static func show(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "0x" + String(byte, radix: 16)
        }
    }
}
