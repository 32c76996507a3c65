import HailProtocol

extension APIResponse {
    /// 429 `rate_limited` with the refusal's sentence and its `Retry-After` in seconds.
    public static func rateLimited(_ refusal: RateLimitRefusal) -> APIResponse {
        var response = error(APIError(code: .rateLimited, message: refusal.message))
        response.headers[HailHeader.retryAfter] = String(refusal.retryAfterSeconds)
        return response
    }
}
