import Foundation

/// RFC 3339 timestamps as the wire carries them: `2026-12-02T13:54:23.123Z`.
///
/// Written with integer calendar arithmetic instead of `DateFormatter`, which is locale-sensitive,
/// slow to create and not `Sendable`. Formatting always yields UTC with exactly three fractional
/// digits, so equal instants (to the millisecond) always produce equal bytes.
public enum WireDate {
    private static let millisecondsPerDay: Int64 = 86_400_000
    /// 0000-01-01 and 9999-12-31 in days since 1970-01-01: the years RFC 3339's four digits can hold.
    private static let firstDay: Int64 = -719_528
    private static let lastDay: Int64 = 2_932_896

    /// `date` as `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, rounded to the nearest millisecond.
    ///
    /// Throws for a non-finite date or one outside the years 0000 to 9999.
    public static func format(_ date: Date) throws(WireDateError) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { throw WireDateError(input: "\(seconds)", reason: "the date is not finite") }
        let milliseconds = (seconds * 1000).rounded()
        // Past ±2^53 a Double no longer holds whole milliseconds; the year check below is far tighter anyway.
        guard abs(milliseconds) < 9_007_199_254_740_992 else {
            throw WireDateError(input: "\(seconds)", reason: "the year is outside 0000 to 9999")
        }
        return try format(millisecondsSince1970: Int64(milliseconds))
    }

    /// The RFC 3339 UTC text for a whole number of milliseconds since 1970-01-01T00:00:00Z.
    public static func format(millisecondsSince1970 milliseconds: Int64) throws(WireDateError) -> String {
        let (days, millisecondOfDay) = floorDivision(milliseconds, millisecondsPerDay)
        guard days >= firstDay, days <= lastDay else {
            throw WireDateError(input: "\(milliseconds) ms", reason: "the year is outside 0000 to 9999")
        }
        let (year, month, day) = civilDate(fromDaysSince1970: days)
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(hour, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(minute, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(second, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(millisecond, count: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads an RFC 3339 date-time: fraction optional (any number of digits), `Z` or a `±hh:mm` offset.
    ///
    /// Anything else, including dates that do not exist (February 30) and leap seconds, is an error
    /// that quotes the input. Digits past the ninth of the fraction are ignored.
    public static func parse(_ text: String) throws(WireDateError) -> Date {
        var reader = Reader(bytes: Array(text.utf8), text: text)
        let year = try reader.number(digits: 4, name: "year")
        try reader.expect(UInt8(ascii: "-"))
        let month = try reader.number(digits: 2, name: "month")
        try reader.expect(UInt8(ascii: "-"))
        let day = try reader.number(digits: 2, name: "day")
        try reader.expectOneOf(UInt8(ascii: "T"), UInt8(ascii: "t"))
        let hour = try reader.number(digits: 2, name: "hour")
        try reader.expect(UInt8(ascii: ":"))
        let minute = try reader.number(digits: 2, name: "minute")
        try reader.expect(UInt8(ascii: ":"))
        let second = try reader.number(digits: 2, name: "second")
        var nanoseconds: Int64 = 0
        var fractionDigits = 0
        if reader.peek == UInt8(ascii: ".") {
            reader.index += 1
            while let byte = reader.peek, byte >= 48, byte <= 57 {
                if fractionDigits < 9 {
                    nanoseconds = nanoseconds * 10 + Int64(byte - 48)
                }
                fractionDigits += 1
                reader.index += 1
            }
            guard fractionDigits > 0 else { throw reader.failure("a digit after the decimal point") }
            for _ in fractionDigits..<max(fractionDigits, 9) { nanoseconds *= 10 }
        }
        let offsetMinutes = try reader.offset()
        guard reader.peek == nil else { throw reader.failure("the end of the text") }

        guard (1...12).contains(month) else { throw reader.invalid("month \(month) does not exist") }
        guard (1...daysInMonth(month, year: year)).contains(day) else {
            throw reader.invalid("day \(day) does not exist in month \(month) of \(year)")
        }
        guard hour < 24 else { throw reader.invalid("hour must be 00 to 23") }
        guard minute < 60 else { throw reader.invalid("minute must be 00 to 59") }
        guard second < 60 else { throw reader.invalid("second must be 00 to 59 (leap seconds are not accepted)") }

        let days = daysSince1970(year: year, month: month, day: day)
        let wholeSeconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        if fractionDigits <= 3 {
            // Whole milliseconds take the same path as the formatter's output, so parse(format(d)) is exact.
            let milliseconds = wholeSeconds * 1000 + nanoseconds / 1_000_000
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return Date(timeIntervalSince1970: Double(wholeSeconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (day 0).
    static func civilDate(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        // Count from 0000-03-01 so the leap day falls at the end of each shifted year, in 400-year eras.
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The day number (1970-01-01 is 0) of a proleptic Gregorian date; the inverse of `civilDate`.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivision(shiftedYear, 400).quotient
        let yearOfEra = shiftedYear - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private static func appendDigits(_ value: Int64, count: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        let text: String
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func failure(_ expected: String) -> WireDateError {
            WireDateError(input: text, reason: "expected \(expected) at offset \(index)")
        }

        func invalid(_ reason: String) -> WireDateError {
            WireDateError(input: text, reason: reason)
        }

        mutating func number(digits: Int, name: String) throws(WireDateError) -> Int64 {
            var value: Int64 = 0
            for _ in 0..<digits {
                guard let byte = peek, byte >= 48, byte <= 57 else { throw failure("a digit of the \(name)") }
                value = value * 10 + Int64(byte - 48)
                index += 1
            }
            return value
        }

        mutating func expect(_ byte: UInt8) throws(WireDateError) {
            guard peek == byte else { throw failure("\"\(Character(Unicode.Scalar(byte)))\"") }
            index += 1
        }

        mutating func expectOneOf(_ first: UInt8, _ second: UInt8) throws(WireDateError) {
            guard peek == first || peek == second else {
                throw failure("\"\(Character(Unicode.Scalar(first)))\"")
            }
            index += 1
        }

        /// The UTC offset in minutes east of Greenwich.
        mutating func offset() throws(WireDateError) -> Int64 {
            switch peek {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
                return 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign: Int64 = peek == UInt8(ascii: "-") ? -1 : 1
                index += 1
                let hours = try number(digits: 2, name: "offset hours")
                try expect(UInt8(ascii: ":"))
                let minutes = try number(digits: 2, name: "offset minutes")
                guard hours < 24, minutes < 60 else { throw invalid("the UTC offset is out of range") }
                return sign * (hours * 60 + minutes)
            default:
                throw failure("\"Z\" or a UTC offset such as +01:00")
            }
        }
    }
}

/// Why a text is not an RFC 3339 date-time, or a date cannot be written as one.
public struct WireDateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending text (shortened when long), or the date's seconds since 1970.
    public let input: String
    /// What is wrong with it.
    public let reason: String

    /// Creates an error, keeping at most 40 characters of the input so error bodies stay short.
    public init(input: String, reason: String) {
        self.input = input.count > 40 ? String(input.prefix(40)) + "..." : input
        self.reason = reason
    }

    /// A sentence naming the expected form, such as `2026-12-02T13:54:23.123Z`.
    public var description: String {
        "\"\(input)\" is not an RFC 3339 date-time like 2026-12-02T13:54:23.123Z: \(reason)"
    }
}
