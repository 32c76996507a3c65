import Testing

@testable import HailScale

@Suite("Commands in Redis's wire form")
struct RedisCommandEncoderTests {
    @Test func eachCommandIsAnArrayOfBulkStringsWithTheirByteLengths() {
        var encoder = RedisCommandEncoder()
        encoder.append(["SET", "{driver:é}", ""])
        encoder.append(["EVALSHA", "abc", "1"], then: ["k", "0123456789"])
        #expect(encoder.count == 2)
        let expected =
            "*3\r\n$3\r\nSET\r\n$11\r\n{driver:é}\r\n$0\r\n\r\n"
            + "*5\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$1\r\nk\r\n$10\r\n0123456789\r\n"
        #expect(String(decoding: encoder.bytes, as: UTF8.self) == expected)
    }

    @Test func anEmptyBufferHoldsNoCommand() {
        let encoder = RedisCommandEncoder(capacity: 64)
        #expect(encoder.count == 0)
        #expect(encoder.bytes.isEmpty)
    }
}
