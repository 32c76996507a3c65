/// The 4-digit code a rider tells the driver at the pickup, so the trip starts only with the right rider on board.
public enum PickupPIN {
    /// How many wrong codes in a row lock starting.
    public static let maxWrongAttempts = 5
    /// How long starting stays locked after the last of them, seconds.
    public static let lockSeconds: Double = 60

    /// True for exactly 4 ASCII digits.
    public static func isWellFormed(_ pin: String) -> Bool {
        pin.utf8.count == 4 && pin.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A new code, `0000` to `9999`, drawn from `random` (the server's, or a seeded one in tests).
    public static func make(using random: inout some RandomNumberGenerator) -> String {
        let digits = Int.random(in: 0...9999, using: &random)
        let text = String(digits)
        return String(repeating: "0", count: 4 - text.count) + text
    }
}
