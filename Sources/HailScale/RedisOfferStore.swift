import Foundation
import HailServer

/// Live dispatch offers in Redis, one key per driver (`<prefix>:<driverID>`) that lapses with the offer,
/// so a driver can accept or decline on any node and only one answer gets through.
///
/// The value is `<state>|<expires ms>|<trip id>` with state `o` (outstanding) or `a` (answering); beside it
/// `<prefix>-by-trip:<trip id>` names the driver the trip is out to, with the same lifetime, so a trip is out to
/// one driver at a time whichever node placed it. Placing, claims and removals are Lua scripts, atomic in Redis,
/// so two nodes claiming at once cannot both win.
///
/// An offer is live while its key is: its lifetime is the key's `PX`, counted by Redis's clock, and no script
/// compares a node's time. (`<expires ms>` is the placing node's date, kept for nodes of earlier versions during
/// an upgrade; nothing here reads it.)
public struct RedisOfferStore: OfferStore {
    /// Shared by every node.
    public var scope: StateScope { .deployment }

    private let client: RedisClient
    private let prefix: String
    private let leasesKey: String

    // A placement whose fence is not the lease's current token is refused ({-1}): its node lost the search. A
    // trip already out to another driver answers that driver and what is left of the offer ({2, driver, ms}).
    private static let placeScript = """
        if ARGV[4] ~= '' then
            local record = redis.call('HGET', KEYS[2], ARGV[3])
            local token = record and string.match(record, '^.*|(%d+)|%-?%d+$')
            if token ~= ARGV[4] then return {-1} end
        end
        local other = redis.call('GET', KEYS[3])
        if other and other ~= ARGV[5] then return {2, other, redis.call('PTTL', KEYS[3])} end
        if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0} end
        redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[2])
        return {1}
        """

    // The trip stays out to this driver while the answer is applied.
    private static let claimScript = """
        local v = redis.call('GET', KEYS[1])
        if not v then return 0 end
        local state, expires, trip = string.match(v, '^(%a)|(%d+)|(.*)$')
        if state ~= 'o' or trip ~= ARGV[1] then return 0 end
        redis.call('SET', KEYS[1], 'a|' .. expires .. '|' .. trip, 'PX', ARGV[2])
        if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
        return 1
        """

    private static let removeScript = """
        if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
        local v = redis.call('GET', KEYS[1])
        if not v then return 0 end
        local trip = string.match(v, '^%a|%d+|(.*)$')
        if trip ~= ARGV[1] then return 0 end
        return redis.call('DEL', KEYS[1])
        """

    /// A store under the keys `<prefix>:<driverID>`, whose placements are fenced by the search leases of
    /// `RedisSearchLeases(prefix: leasesPrefix)`.
    public init(client: RedisClient, prefix: String = "hail:offers", leasesPrefix: String = "hail:searches") {
        self.client = client
        self.prefix = prefix
        leasesKey = RedisSearchLeases.ownersKey(prefix: leasesPrefix)
    }

    /// `SET NX` with the offer's remaining lifetime, unless the fence is stale: a driver holding any offer is not
    /// offered another.
    public func place(_ offer: DispatchMachine.Offer, now: Date, fence: SearchFence?) async throws -> OfferPlacement {
        let lifetime = max(1, Int((offer.expiresAt.timeIntervalSince(now) * 1000).rounded(.up)))
        let command = [
            "EVAL", Self.placeScript, "3", key(offer.driverID), leasesKey, tripKey(offer.tripID),
            "o|\(Self.millis(offer.expiresAt))|\(offer.tripID)", String(lifetime), offer.tripID,
            fence.map { String($0.token) } ?? "", offer.driverID,
        ]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard let fields = reply.elements, case .integer(let placed)? = fields.first else {
            throw RedisError.unexpected("offer place answered \(reply)")
        }
        switch placed {
        case 1: return .placed
        case -1: return .fenced
        case 2:
            guard fields.count == 3, let driverID = fields[1].text, case .integer(let left) = fields[2] else {
                throw RedisError.unexpected("offer place answered \(reply)")
            }
            return .tripOffered(
                DispatchMachine.Offer(
                    tripID: offer.tripID, driverID: driverID, expiresAt: now.addingTimeInterval(Double(left) / 1000)))
        default: return .driverBusy
        }
    }

    /// The driver's outstanding offer while its key lives, dated on the caller's clock.
    public func offer(heldBy driverID: String, now: Date) async throws -> DispatchMachine.Offer? {
        guard let (state, offer) = try await read(driverID, now: now), state == "o" else { return nil }
        return offer
    }

    /// The live offers of many drivers, read in one round trip.
    public func offers(heldBy driverIDs: [String], now: Date) async throws -> [String: DispatchMachine.Offer] {
        guard !driverIDs.isEmpty else { return [:] }
        let commands = driverIDs.flatMap { [["GET", key($0)], ["PTTL", key($0)]] }
        let replies = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
        var offers: [String: DispatchMachine.Offer] = [:]
        for (index, driverID) in driverIDs.enumerated() where replies.count >= 2 * index + 2 {
            // One driver's unreadable offer costs that driver its offer, not the others theirs.
            let read = try? Self.offer(replies[2 * index], replies[2 * index + 1], driverID: driverID, now: now)
            if let (state, offer) = read ?? nil, state == "o" {
                offers[driverID] = offer
            }
        }
        return offers
    }

    /// Outstanding, answering, or gone (another trip's offer for the same driver counts as gone).
    public func status(of offer: DispatchMachine.Offer, now: Date) async throws -> OfferStatus {
        guard let (state, stored) = try await read(offer.driverID, now: now), stored.tripID == offer.tripID else {
            return .gone
        }
        return state == "a" ? .answering : .outstanding
    }

    /// Turns the outstanding offer into an answering one, atomically; true for exactly one caller. The offer's key
    /// still living is what makes it claimable: the caller's clock is not asked.
    public func claim(tripID: String, driverID: String, now: Date) async throws -> Bool {
        let window = String(Int(Self.answerWindow * 1000))
        let command = ["EVAL", Self.claimScript, "2", key(driverID), tripKey(tripID), tripID, window, driverID]
        let reply = try await client.run { connection in try connection.command(command).checked() }
        guard case .integer(let won) = reply else { throw RedisError.unexpected("offer claim answered \(reply)") }
        return won == 1
    }

    /// Deletes the driver's offer of `tripID`, whatever its state.
    public func remove(tripID: String, driverID: String) async throws {
        let command = ["EVAL", Self.removeScript, "2", key(driverID), tripKey(tripID), tripID, driverID]
        _ = try await client.run { connection in try connection.command(command).checked() }
    }

    private func key(_ driverID: String) -> String { prefix + ":" + driverID }

    /// The key naming the driver `tripID` is out to.
    private func tripKey(_ tripID: String) -> String { prefix + "-by-trip:" + tripID }

    /// The driver's offer and its state while its key lives, its expiry `now` plus the key's time to live.
    private func read(_ driverID: String, now: Date) async throws -> (String, DispatchMachine.Offer)? {
        let commands = [["GET", key(driverID)], ["PTTL", key(driverID)]]
        let replies = try await client.run { connection in try connection.pipeline(commands).map { try $0.checked() } }
        guard replies.count == 2 else { return nil }
        return try Self.offer(replies[0], replies[1], driverID: driverID, now: now)
    }

    /// An offer's state and offer from its key's `GET` and `PTTL` answers; nil when there is none or it lapsed.
    private static func offer(_ value: RedisReply, _ ttl: RedisReply, driverID: String, now: Date) throws
        -> (String, DispatchMachine.Offer)?
    {
        guard let value = value.text, case .integer(let left) = ttl, left > 0 else { return nil }
        let parts = value.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw RedisError.unexpected("the offer of \(driverID) holds \(value)") }
        let offer = DispatchMachine.Offer(
            tripID: String(parts[2]), driverID: driverID, expiresAt: now.addingTimeInterval(Double(left) / 1000))
        return (String(parts[0]), offer)
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
