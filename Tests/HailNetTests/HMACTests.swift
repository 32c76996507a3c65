import Testing

@testable import HailNet

@Suite struct HMACTests {
    private func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    /// RFC 4231 test cases 1-4, 6 and 7 (case 5 is a truncated output).
    @Test func rfc4231Vectors() {
        let aa131 = [UInt8](repeating: 0xaa, count: 131)
        let cases: [([UInt8], [UInt8], String)] = [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                Array(1...25), [UInt8](repeating: 0xcd, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                aa131, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                aa131,
                Array(
                    ("This is a test using a larger than block-size key and a larger than block-size data. "
                        + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ]
        for (key, message, expected) in cases {
            let mac = HMAC.sha256(key: key, message: message)
            #expect(HMAC.hex(mac) == expected)
            #expect(HMAC.equal(mac, bytes(expected)))
        }
    }

    @Test func equalIsFalseForAnyDifferenceOrLength() {
        let mac = HMAC.sha256(key: "k", message: "m")
        var flipped = mac
        flipped[31] ^= 1
        #expect(!HMAC.equal(mac, flipped))
        #expect(!HMAC.equal(mac, Array(mac.prefix(31))))
        #expect(HMAC.equal(mac, HMAC.sha256(key: "k", message: "m")))
        #expect(HMAC.sha256(key: [], message: []).count == 32)
    }

    @Test func secureRandomGivesDistinctBytes() {
        #expect(SecureRandom.bytes(32).count == 32)
        #expect(SecureRandom.bytes(16) != SecureRandom.bytes(16))
        #expect(SecureRandom.hex(byteCount: 8).count == 16)
    }
}
