import Foundation
import HailNet
import Testing

/// HailNet's token signatures against the standard's own example (RFC 7515, appendix A.3: ES256) and round trips
/// through OpenSSL for both algorithms; no Hail code computes any of it by hand.
@Suite("Token signatures: ES256 and RS256 through OpenSSL")
struct TokenSignatureTests {
    static func base64URL(_ text: String) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Array(Data(base64Encoded: base64) ?? Data())
    }

    static let rfcSigningInput = Array(
        ("eyJhbGciOiJFUzI1NiJ9"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ").utf8)
    static let rfcSignature = base64URL(
        "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q")

    @Test func theRFC7515ES256ExampleVerifies() throws {
        let key = try VerificationKey.ellipticCurveP256(
            x: Self.base64URL("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"),
            y: Self.base64URL("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        #expect(key.algorithm == .es256)
        #expect(key.verifies(Self.rfcSignature, of: Self.rfcSigningInput, algorithm: .es256))
        var tampered = Self.rfcSignature
        tampered[10] ^= 1
        #expect(!key.verifies(tampered, of: Self.rfcSigningInput, algorithm: .es256))
        #expect(!key.verifies(Self.rfcSignature, of: Self.rfcSigningInput + [0x20], algorithm: .es256))
        // The same bytes under another algorithm name are never checked as such.
        #expect(!key.verifies(Self.rfcSignature, of: Self.rfcSigningInput, algorithm: .rs256))
    }

    @Test(arguments: SignatureAlgorithm.allCases) func aKeyPairSignsWhatItsPublicHalfVerifies(
        algorithm: SignatureAlgorithm
    ) throws {
        let signing = try SigningKey.generate(algorithm)
        #expect(signing.algorithm == algorithm)
        let parameters = signing.publicParameters
        let verifying =
            algorithm == .es256
            ? try VerificationKey.ellipticCurveP256(x: parameters["x"] ?? [], y: parameters["y"] ?? [])
            : try VerificationKey.rsa(modulus: parameters["n"] ?? [], exponent: parameters["e"] ?? [])
        let message = Array("header.claims".utf8)
        let signature = signing.sign(message)
        #expect(signature.count == (algorithm == .es256 ? 64 : 256))
        #expect(verifying.verifies(signature, of: message, algorithm: algorithm))
        // Read back from its PEM, the key signs for the same public half.
        let again = try SigningKey(pem: signing.pem)
        #expect(verifying.verifies(again.sign(message), of: message, algorithm: algorithm))
        #expect(signing.pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func keysThatAreNoKeysAreRefused() {
        let one = [UInt8](repeating: 0, count: 31) + [1]
        #expect(throws: KeyProblem.self) { try VerificationKey.ellipticCurveP256(x: one, y: one) }
        #expect(throws: KeyProblem.self) { try VerificationKey.ellipticCurveP256(x: [1, 2, 3], y: one) }
        // A 1024-bit modulus is too small to trust.
        #expect(throws: KeyProblem.self) {
            try VerificationKey.rsa(modulus: [0xC1] + [UInt8](repeating: 0x55, count: 127), exponent: [1, 0, 1])
        }
        #expect(throws: KeyProblem.self) {
            try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }
}
