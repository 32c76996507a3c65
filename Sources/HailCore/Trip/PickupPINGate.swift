import Foundation

/// Checks the PIN a driver sends with `started` against the trip's, counting wrong ones and locking starting for
/// `PickupPIN.lockSeconds` after `PickupPIN.maxWrongAttempts` in a row. Pure: the server passes its clock's `now`.
public enum PickupPINGate {
    /// What the check decided.
    public enum Verdict: Sendable, Hashable {
        /// No PIN is required, or the right one was sent: the start may go on, with this record (its count cleared).
        case pass(TripRecord)
        /// The PIN was missing or wrong: commit `record` (the count, and the lock it may start; version one higher),
        /// then refuse. `attemptsLeft` is 0 when this attempt locked starting until `lockedUntil`.
        case wrong(record: TripRecord, attemptsLeft: Int, lockedUntil: Date?)
        /// Starting is locked: refuse without checking the PIN, and change nothing.
        case locked(until: Date)
    }

    /// Judges `entered` for a start of `record` at `now`.
    public static func judge(_ entered: String?, on record: TripRecord, now: Date) -> Verdict {
        guard let expected = record.pickupPIN else { return .pass(record) }
        var attempts = record.pinAttempts ?? PickupPINAttempts()
        if let until = attempts.lockedUntil {
            if now < until { return .locked(until: until) }
            // The lock is over: a fresh run of attempts.
            attempts = PickupPINAttempts()
        }
        if entered == expected {
            var passed = record
            passed.pinAttempts = nil
            return .pass(passed)
        }
        attempts.wrong += 1
        var counted = record
        counted.trip.version += 1
        if attempts.wrong >= PickupPIN.maxWrongAttempts {
            let until = now.addingTimeInterval(PickupPIN.lockSeconds)
            counted.pinAttempts = PickupPINAttempts(wrong: attempts.wrong, lockedUntil: until)
            return .wrong(record: counted, attemptsLeft: 0, lockedUntil: until)
        }
        counted.pinAttempts = attempts
        return .wrong(record: counted, attemptsLeft: PickupPIN.maxWrongAttempts - attempts.wrong, lockedUntil: nil)
    }
}
