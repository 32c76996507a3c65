import Foundation
import HailCore
import HailProtocol
import HailTesting
import Testing

@Suite struct WireDateFormatting {
    @Test(arguments: [
        (1_796_219_663_000 as Int64, "2026-12-02T13:54:23.000Z"),
        (1_796_219_663_123, "2026-12-02T13:54:23.123Z"),
        (1_796_219_663_999, "2026-12-02T13:54:23.999Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-1000, "1969-12-31T23:59:59.000Z"),
        (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
        (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
        (-2_203_848_000_000, "1900-03-01T12:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formatsMilliseconds(milliseconds: Int64, expected: String) throws {
        #expect(try WireDate.format(millisecondsSince1970: milliseconds) == expected)
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        #expect(try WireDate.format(date) == expected)
        #expect(try WireDate.parse(expected) == date)
    }

    @Test func roundsToTheNearestMillisecondRatherThanTruncating() throws {
        // 0.123 is not exact in binary; truncation would print .122.
        #expect(try WireDate.format(Date(timeIntervalSince1970: 1_796_219_663.123)) == "2026-12-02T13:54:23.123Z")
        #expect(try WireDate.format(Date(timeIntervalSince1970: 1_796_219_663.9996)) == "2026-12-02T13:54:24.000Z")
    }

    @Test func refusesDatesOutsideFourDigitYears() {
        #expect(throws: WireDateError.self) { try WireDate.format(Date(timeIntervalSince1970: 253_402_300_800)) }
        #expect(throws: WireDateError.self) { try WireDate.format(Date(timeIntervalSince1970: -62_167_219_201)) }
        #expect(throws: WireDateError.self) { try WireDate.format(Date(timeIntervalSince1970: .infinity)) }
        #expect(throws: WireDateError.self) { try WireDate.format(Date(timeIntervalSince1970: .nan)) }
    }

    @Test func everyMillisecondRoundTripsThroughText() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &rng)
            let text = try WireDate.format(millisecondsSince1970: milliseconds)
            let date = try WireDate.parse(text)
            #expect(date == Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            #expect(try WireDate.format(date) == text)
        }
    }
}

@Suite struct WireDateParsing {
    @Test(arguments: [
        ("2026-12-02T13:54:23.123Z", "2026-12-02T13:54:23.123Z"),
        ("2026-12-02T13:54:23Z", "2026-12-02T13:54:23.000Z"),
        ("2026-12-02T13:54:23.1Z", "2026-12-02T13:54:23.100Z"),
        ("2026-12-02T14:54:23.123+01:00", "2026-12-02T13:54:23.123Z"),
        ("2026-12-02T08:24:23.123-05:30", "2026-12-02T13:54:23.123Z"),
        ("2026-12-03T00:54:23+11:00", "2026-12-02T13:54:23.000Z"),
        ("2026-12-02T13:54:23-00:00", "2026-12-02T13:54:23.000Z"),
        ("2026-12-02t13:54:23.123z", "2026-12-02T13:54:23.123Z"),
        ("2026-12-02T13:54:23.123456789Z", "2026-12-02T13:54:23.123Z"),
        ("2026-12-02T13:54:23.1236Z", "2026-12-02T13:54:23.124Z"),
        ("2026-12-02T13:54:23.1234567891234Z", "2026-12-02T13:54:23.123Z"),
        ("1970-01-01T00:59:59.999+01:00", "1969-12-31T23:59:59.999Z"),
    ])
    func acceptsRFC3339(text: String, canonical: String) throws {
        #expect(try WireDate.format(WireDate.parse(text)) == canonical)
    }

    @Test func offsetsShiftTheInstant() throws {
        let utc = try WireDate.parse("2026-12-02T13:54:23.123Z")
        #expect(abs(utc.timeIntervalSince1970 - 1_796_219_663.123) < 1e-6)
        #expect(try WireDate.parse("2026-12-02T14:54:23.123+01:00") == utc)
        #expect(try WireDate.parse("2026-12-02T08:24:23.123-05:30") == utc)
    }

    @Test(arguments: [
        "",
        "2026-12-02",
        "2026-12-02 13:54:23Z",
        "2026-12-02T13:54:23",
        "2026-12-02T13:54:23.Z",
        "2026-12-02T13:54Z",
        "26-12-02T13:54:23Z",
        "2026-13-02T13:54:23Z",
        "2026-02-29T13:54:23Z",
        "1900-02-29T00:00:00Z",
        "2026-12-32T13:54:23Z",
        "2026-12-02T24:00:00Z",
        "2026-12-02T13:60:00Z",
        "2026-12-02T23:59:60Z",
        "2026-12-02T13:54:23+0100",
        "2026-12-02T13:54:23+24:00",
        "2026-12-02T13:54:23Z ",
        "1796219663",
        "2026-12-02T13:54:23.123ZZ",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(throws: WireDateError.self) { try WireDate.parse(text) }
    }

    @Test func errorQuotesTheInputAndTheExpectedForm() {
        #expect {
            try WireDate.parse("2026-02-30T10:00:00Z")
        } throws: { error in
            let message = (error as? WireDateError)?.description ?? ""
            return message
                == "\"2026-02-30T10:00:00Z\" is not an RFC 3339 date-time like 2026-12-02T13:54:23.123Z: "
                + "day 30 does not exist in month 2 of 2026"
        }
    }
}
