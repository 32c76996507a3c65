import Foundation
import HailServer

/// Live dispatch offers in Redis, one key per driver (`<prefix>:<driverID>`) that lapses with the offer,
/// so a driver can accept or decline on any node and only one answer gets through.
///
/// The value is `<state>|<expires ms>|<trip id>` with state `o` (outstanding) or `a` (answering). Claims
/// and removals are Lua scripts, atomic in Redis, so two nodes claiming at once cannot both win.
public struct RedisOfferStore: OfferStore {
    private let client: RedisClient
    private let prefix: String

    private static let claimScript = """
        local v = redis.call('GET', KEYS[1])
        if not v then return 0 end
        local state, expires, trip = string.match(v, '^(%a)|(%d+)|(.*)$')
        if state ~= 'o' or trip ~= ARGV[1] or tonumber(expires) <= tonumber(ARGV[2]) then return 0 end
        redis.call('SET', KEYS[1], 'a|' .. expires .. '|' .. trip, 'PX', ARGV[3])
        return 1
        """

    private static let removeScript = """
        local v = redis.call('GET', KEYS[1])
        if not v then return 0 end
        local trip = string.match(v, '^%a|%d+|(.*)$')
        if trip ~= ARGV[1] then return 0 end
        return redis.call('DEL', KEYS[1])
        """

    /// A store under the keys `<prefix>:<driverID>`.
    public init(client: RedisClient, prefix: String = "hail:offers") {
        self.client = client
        self.prefix = prefix
    }

    /// `SET NX` with the offer's remaining lifetime: a driver holding any offer is not offered another.
    public func place(_ offer: DispatchMachine.Offer, now: Date) async throws -> Bool {
        let lifetime = max(1, Int((offer.expiresAt.timeIntervalSince(now) * 1000).rounded(.up)))
        let command = [
            "SET", key(offer.driverID), "o|\(Self.millis(offer.expiresAt))|\(offer.tripID)", "NX", "PX",
            String(lifetime),
        ]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        return reply.text == "OK"
    }

    /// The driver's outstanding offer, unless it lapsed by `now` on this node's clock.
    public func offer(heldBy driverID: String, now: Date) async throws -> DispatchMachine.Offer? {
        guard let (state, offer) = try await read(driverID), state == "o", offer.expiresAt > now else { return nil }
        return offer
    }

    /// Outstanding, answering, or gone (another trip's offer for the same driver counts as gone).
    public func status(of offer: DispatchMachine.Offer, now: Date) async throws -> OfferStatus {
        guard let (state, stored) = try await read(offer.driverID), stored.tripID == offer.tripID else { return .gone }
        if state == "a" { return .answering }
        return stored.expiresAt > now ? .outstanding : .gone
    }

    /// Turns the outstanding offer into an answering one, atomically; true for exactly one caller.
    public func claim(tripID: String, driverID: String, now: Date) async throws -> Bool {
        let window = String(Int(Self.answerWindow * 1000))
        let command = ["EVAL", Self.claimScript, "1", key(driverID), tripID, String(Self.millis(now)), window]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard case .integer(let won) = reply else { throw RedisError.unexpected("offer claim answered \(reply)") }
        return won == 1
    }

    /// Deletes the driver's offer of `tripID`, whatever its state.
    public func remove(tripID: String, driverID: String) async throws {
        let command = ["EVAL", Self.removeScript, "1", key(driverID), tripID]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    private func key(_ driverID: String) -> String { prefix + ":" + driverID }

    private func read(_ driverID: String) async throws -> (String, DispatchMachine.Offer)? {
        let command = ["GET", key(driverID)]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let value = reply.text else { return nil }
        let parts = value.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let millis = Int64(parts[1]) else {
            throw RedisError.unexpected("offer \(key(driverID)) holds \(value)")
        }
        let offer = DispatchMachine.Offer(
            tripID: String(parts[2]), driverID: driverID,
            expiresAt: Date(timeIntervalSince1970: Double(millis) / 1000))
        return (String(parts[0]), offer)
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
