import Foundation
import FuzzSupport
import HailProtocol
import HailServer

private let authority = TokenAuthority(authenticator: HMACAuthenticator(secret: InProcessServer.secret))
private let signer = HMACAuthenticator(secret: InProcessServer.secret)

/// libFuzzer's entry point: the input as an `Authorization` header, as a token, as the claims of a token
/// signed with the right secret (so the claims' JSON is reached, which a forged MAC never does), and as the
/// headers the rate limiter keys on (`Authorization`, `access_token`, `X-Forwarded-For`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokens(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    let now = InProcessServer.epoch

    if let token = BearerToken.parse(text) {
        FuzzInvariant.require(!token.isEmpty && !token.contains(" "), "bearer token \(token.debugDescription)")
        _ = try? authority.verify(token, now: now)
    }
    _ = try? authority.verify(text, now: now)
    checkLimiterKeys(text)

    let signed = "\(TokenAuthority.prefix).\(base64URL(bytes))"
    let token = "\(signed).\(base64URL(signer.code(for: Array(signed.utf8))))"
    do throws(APIError) {
        let claims = try authority.verify(token, now: now)
        FuzzInvariant.require(TimeInterval(claims.exp) > now.timeIntervalSince1970, "accepted an expired token")
        // What the authority accepts, it can mint again, and the minted token reads back the same.
        let again = try authority.verify(authority.mint(claims), now: now)
        FuzzInvariant.require(again == claims, "claims \(claims) came back as \(again)")
    } catch {
        FuzzInvariant.require(error.httpStatus == 401, "a bad token gave \(error)")
    }
    return 0
}

private let trustedProxies: Set<String> = ["10.0.0.1", "10.0.0.2"]

/// The rate limiter's keys: the token it counts against, and the client address behind trusted proxies,
/// which is the peer or a hop the client sent, never a trusted proxy and never longer than 64 characters.
private func checkLimiterKeys(_ text: String) {
    _ = RateLimitGate.token(authorization: text, accessToken: text, path: text)
    _ = RateLimitGate.token(authorization: nil, accessToken: nil, path: text)
    let address = ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: text, trustedProxies: trustedProxies)
    FuzzInvariant.require(
        address == "10.0.0.1" || (!trustedProxies.contains(address) && address.count <= 64 && !address.isEmpty),
        "X-Forwarded-For \(text.debugDescription) resolved to \(address.debugDescription)")
    let direct = ClientAddress.resolve(peer: "198.51.100.7", forwardedFor: text, trustedProxies: trustedProxies)
    FuzzInvariant.require(direct == "198.51.100.7", "an untrusted peer's X-Forwarded-For was believed")
}

private func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
