import Foundation

/// The text of an APNs provider token (RFC 7519 JWT, JWS compact form) before and after its signature.
///
/// Pure: the ES256 signature itself comes from OpenSSL in HailAPNs; this only lays out the bytes it signs.
public enum APNsJWT {
    /// `base64url({"alg":"ES256","kid":KEY}) . base64url({"iss":TEAM,"iat":SECONDS})`, the JWS signing input.
    public static func signingInput(keyID: String, teamID: String, issuedAt: Date) -> String {
        let seconds = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let header = #"{"alg":"ES256","kid":"\#(escape(keyID))"}"#
        let claims = #"{"iss":"\#(escape(teamID))","iat":\#(seconds)}"#
        return base64URL(Array(header.utf8)) + "." + base64URL(Array(claims.utf8))
    }

    /// The whole token: the signing input, a dot, and the 64-byte raw `r || s` signature in base64url.
    public static func token(signingInput: String, signature: [UInt8]) -> String {
        signingInput + "." + base64URL(signature)
    }

    /// Base64url without padding (RFC 7515, section 2).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Key and team ids are ten letters and digits; anything else is escaped rather than trusted.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
