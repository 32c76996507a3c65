import Foundation
import FuzzSupport
import HailProtocol
import HailServer

private let authority = TokenAuthority(authenticator: HMACAuthenticator(secret: InProcessServer.secret))
private let signer = HMACAuthenticator(secret: InProcessServer.secret)

/// libFuzzer's entry point: the input as an `Authorization` header, as a token, and as the claims of a
/// token signed with the right secret (so the claims' JSON is reached, which a forged MAC never does).
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

private func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
