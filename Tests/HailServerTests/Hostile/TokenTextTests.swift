import Foundation
import HailCore
import Testing

@testable import HailServer

/// The token's text read without Foundation's string work: the same bytes and refusals as the former reading
/// (Foundation's base64 decoder over the text made standard and padded; `trimmingCharacters(in: .whitespaces)`).
@Suite struct TokenTextTests {
    /// What the former `Base64URL.decode` answered.
    static func foundationDecode(_ text: String) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({ byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45
                    || byte == 95
            })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { Array($0) }
    }

    @Test func base64URLDecodesLikeFoundationForEveryLengthAndCharacter() {
        var random = SplitMix64(seed: 38)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var compared = 0
        for length in 0..<40 {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(Base64URL.decode(Substring(text)) == Self.foundationDecode(text), "\(text)")
                compared += 1
            }
        }
        #expect(compared == 2_000)
        for text in ["QQ", "QR", "QUI", "QUJ", "QUJD", "", "Q", "QUJDR", "a+b", "a/b", "ab=", "ab c", "é"] {
            #expect(Base64URL.decode(Substring(text)) == Self.foundationDecode(text), "\(text)")
        }
        #expect(Base64URL.decode("QUJD") == [65, 66, 67])
        #expect(Base64URL.decode("QR") == [65])
        #expect(Base64URL.decode("Q") == nil)
        #expect(Base64URL.decode("a+b") == nil)
    }

    @Test func aMintedTokenStillVerifiesAndATamperedOneDoesNot() throws {
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: Array(repeating: 3, count: 32)))
        let claims = AccessToken(role: .rider, sub: "rider-ü", exp: 2_000_000_000, iat: 1_000)
        let token = tokens.mint(claims)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        #expect(try tokens.verify(token, now: now).sub == "rider-ü")
        var tampered = Array(token.utf8)
        tampered[tampered.count - 1] = tampered.last == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: Error.self) { try tokens.verify(String(decoding: tampered, as: UTF8.self), now: now) }
    }

    @Test func theBearerTokenIsTrimmedOfTheBlanksFoundationTrimmed() {
        for text in ["abc", " abc ", "\tabc\t", "\u{00A0}abc\u{2003}", "a b", " ", "", "\nabc\n", "\u{3000}abc"] {
            #expect(
                RateLimitGate.token(authorization: "Bearer " + text, accessToken: nil, path: "/")
                    == text.trimmingCharacters(in: .whitespaces), "\(text.unicodeScalars.map(\.value))")
        }
    }
}
