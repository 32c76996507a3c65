import Testing

@testable import HailProtocol

@Suite("Percent-encoding, decoded without iOS 18's String(validating:as:)")
struct PercentEncodingTests {
    @Test func escapesDecodeToTheirUTF8Text() {
        #expect(PercentEncoding.decode("caf%C3%A9%20%E2%82%AC") == "café €")
        #expect(PercentEncoding.decode("a+b", plusIsSpace: true) == "a b")
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("%F0%9F%9A%95") == "🚕")
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        // A lone continuation byte, a truncated two-byte sequence, an overlong "/" and a UTF-16 surrogate.
        #expect(PercentEncoding.decode("%80") == nil)
        #expect(PercentEncoding.decode("caf%C3") == nil)
        #expect(PercentEncoding.decode("%C0%AF") == nil)
        #expect(PercentEncoding.decode("%ED%A0%80") == nil)
    }

    @Test func malformedEscapesAreRefused() {
        #expect(PercentEncoding.decode("%4") == nil)
        #expect(PercentEncoding.decode("%zz") == nil)
    }

    @Test func encodingThenDecodingGivesTheTextBack() {
        let text = "rider 7/é?&=🚕"
        #expect(PercentEncoding.encode(text) == "rider%207%2F%C3%A9%3F%26%3D%F0%9F%9A%95")
        #expect(PercentEncoding.decode(PercentEncoding.encode(text)) == text)
    }
}
