import Foundation

/// One line of an app's event log (`hail fleet --log DIR`, one `.jsonl` file per app): what the app was told or
/// showed, at `t`, the epoch seconds of the machine's clock (every app of a fleet shares it, so a rider's frame
/// and the driver's fix it shows compare exactly). Fields that do not apply are left out; docs/RELIABILITY.md
/// lists the events and their fields.
public struct FleetEvent: Encodable, Sendable, Hashable {
    /// When, in epoch seconds.
    public var t: Double
    /// The event's kind: `app`, `rest`, `stream`, `offer`, `offerWithdrawn`, `trip`, `sent`, `fixes`, `tripEnd`,
    /// `ride`, `frame`.
    public var ev: String
    /// `app`: rider or driver.
    public var role: String?
    /// `app`: the account id its token names (the `driver.id` riders see).
    public var subject: String?
    /// `rest`: the call, such as `requestTrip`, `accept`, `event:ended`, `locations`.
    public var call: String?
    /// `rest`: `ok`, or `error` with `status`, `code` and `error`.
    public var outcome: String?
    /// `rest`: the HTTP status of a refusal or failure (absent on a 2xx, whose code the seam does not pass on).
    public var status: Int?
    /// `rest`: CallError's code (`noAnswer`, `refused`, `serverFailed`, ...).
    public var code: String?
    /// `rest`, `stream`: the error's text.
    public var error: String?
    /// `rest`: the call's duration in milliseconds.
    public var ms: Double?
    /// The trip concerned.
    public var trip: String?
    /// The trip's version in an answer or frame.
    public var version: Int?
    /// The trip's state in an answer or frame (`tripEnd`: the state it ended in).
    public var state: String?
    /// `sent`, `fixes`, `frame`: a location batch's seq.
    public var seq: Int64?
    /// `sent`, `fixes`: `stream`, `rest`, `ended` (the unacknowledged fixes sent with the trip's end), or `start` (the
    /// newest acknowledged fix when the trip started, where the car stood: the server's history begins there).
    public var via: String?
    /// `sent`, `fixes`: the batch was the phone's backlog.
    public var backlog: Bool?
    /// `fixes`: each acknowledged fix as `[t, lat, lng]`, its time on the phone's (this machine's) clock.
    public var fixes: [[Double]]?
    /// `sent`: the newest fix's time in the batch (the one the server publishes to the rider).
    public var lastFixAt: Double?
    /// `offer`: when the offer lapses, on the server's clock.
    public var expiresAt: Double?
    /// `stream`: `connecting`, `connected`, `failed`, `hello`, `closed`.
    public var stream: String?
    /// `stream` `closed`: the server's close code, when it sent one.
    public var closeCode: UInt16?
    /// `hello`: the server's clock.
    public var serverTime: Double?
    /// `frame`: the rider screen's phase.
    public var phase: String?
    /// `frame`: the pin's level as the screen shows it (`live`, `updating`, `locating`), absent with no pin.
    public var pin: String?
    /// `frame`: the fix's age the screen computes (server clock, seconds).
    public var age: Double?
    /// `frame`: the driver on the trip (`driver.id`).
    public var driver: String?
    /// `frame`: the shown position's fix time as the server estimated it (`fixedAt`), on the server's clock.
    public var fixedAt: Double?
    /// `frame`: when the server received the shown position, on its clock.
    public var receivedAt: Double?
    /// `frame`: the rider's estimate of the server's clock minus the phone's.
    public var clockOffset: Double?
    /// `tripEnd`, `frame`: the fare in minor units.
    public var fare: Int?
    /// `tripEnd`: the fare's currency.
    public var currency: String?
    /// `tripEnd`: the charged distance in metres (the receipt's).
    public var distance: Int?
    /// `tripEnd`: the charged duration in seconds.
    public var duration: Int?
    /// `tripEnd` (driver): the metres the car drove on the trip, by its route.
    public var driven: Double?
    /// `ride`: the rider's ride number.
    public var ride: Int?
    /// `ride`: `start` or `end`.
    public var step: String?
    /// `ride`: the seconds after the request at which the rider cancels (0: never).
    public var cancelAfter: Double?
    /// `app`, `ride`: a position `[lat, lng]` (start, pickup).
    public var from: [Double]?
    /// `ride`: the dropoff `[lat, lng]`.
    public var to: [Double]?

    /// An event of kind `ev` at `t`.
    public init(t: Double, ev: String) {
        self.t = t
        self.ev = ev
    }
}
