import Foundation

/// A Swift value sent to PostgreSQL as a text-format parameter.
public protocol PostgresEncodable: Sendable {
    /// The parameter's text form, nil for SQL NULL.
    var postgresText: String? { get }
}

extension String: PostgresEncodable {
    /// The string itself.
    public var postgresText: String? { self }
}

extension Int: PostgresEncodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
}

extension Double: PostgresEncodable {
    /// Swift's shortest round-trip form, which PostgreSQL parses back to the same bits.
    public var postgresText: String? { "\(self)" }
}

extension Bool: PostgresEncodable {
    /// `t` or `f`.
    public var postgresText: String? { self ? "t" : "f" }
}

extension Data: PostgresEncodable {
    /// The `bytea` hex form, `\x` then two hex digits a byte.
    public var postgresText: String? { PostgresBytes.hex(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// The wrapped value's text, or NULL.
    public var postgresText: String? { self.flatMap(\.postgresText) }
}

extension Array: PostgresEncodable where Element: PostgresEncodable {
    /// The array literal: `{"a","b\"c",NULL}`, every element quoted so commas, braces and spaces in strings
    /// stay inside it, and a nil element as an unquoted NULL.
    public var postgresText: String? {
        var text = "{"
        for (index, element) in enumerated() {
            if index > 0 { text.append(",") }
            guard let elementText = element.postgresText else {
                text.append("NULL")
                continue
            }
            text.append("\"")
            for character in elementText {
                if character == "\"" || character == "\\" { text.append("\\") }
                text.append(character)
            }
            text.append("\"")
        }
        text.append("}")
        return text
    }
}

/// The `bytea` hex text format, both ways.
enum PostgresBytes {
    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ data: Data) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        bytes.reserveCapacity(2 + data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func data(fromHex text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0
        else { return nil }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = value(bytes[index]), let low = value(bytes[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
