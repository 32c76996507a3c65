/// Idempotency keys: UUIDs, one per user intent (a tap), reused on every retry of that intent.
public enum IdempotencyKey {
    /// True for the canonical 8-4-4-4-12 hexadecimal form, in either case.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex =
                    (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
                guard isHex else { return false }
            }
        }
        return true
    }

    /// Reads the `Idempotency-Key` header value, or throws the 400 a route that needs one returns.
    public static func require(_ headerValue: String?) throws(APIError) -> String {
        guard let value = headerValue?.trimmingSpaces, !value.isEmpty else {
            throw APIError.missingField(HailHeader.idempotencyKey)
        }
        guard isValid(value) else {
            throw APIError.invalidField(
                HailHeader.idempotencyKey,
                "\(HailHeader.idempotencyKey) must be a UUID such as 7c9e6679-7425-40de-944b-e07fc1f90ae7")
        }
        return value
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        let bytes = utf8
        let isSpace: (UInt8) -> Bool = { $0 == 32 || $0 == 9 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
