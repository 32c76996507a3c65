import Foundation
import HailCore
import HailServer
import Synchronization
import Testing

/// The rules of search leases on one clock, with exact values: who may take a lease, when a token is drawn, and
/// how the search's deadline travels with the trip from node to node.
@Suite("Search leases: who holds a search, under which token, until when")
struct SearchLeaseTableTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_220_000)
    static let fresh = SearchLeaseRequest(searchTime: 60, restart: true)

    @Test func aLiveLeaseIsNobodyElsesAndItsHolderRenewsItUnderTheSameToken() {
        var table = SearchLeaseTable()
        let first = table.hold(tripID: "t", owner: "a", duration: 5, request: Self.fresh, now: Self.t0)
        #expect(first == SearchLease(token: 1, remaining: 60))
        // Up to the last instant of the lease, another node is refused.
        #expect(table.hold(tripID: "t", owner: "b", duration: 5, request: Self.fresh, now: Self.t0 + 4.999) == nil)
        let renewal = SearchLeaseRequest(token: 1, searchTime: 60)
        #expect(
            table.hold(tripID: "t", owner: "a", duration: 5, request: renewal, now: Self.t0 + 4)
                == SearchLease(token: 1, remaining: 56))
        #expect(table.entries["t"]?.until == Self.t0 + 9)
        #expect(table.lapsed(now: Self.t0 + 8.999, limit: 10) == [])
        #expect(table.unheld(["t", "u"], now: Self.t0 + 8.999) == ["u"])
    }

    @Test func aLapsedLeaseIsAdoptedUnderTheNextTokenWithTheSearchsDeadline() {
        var table = SearchLeaseTable()
        _ = table.hold(tripID: "t", owner: "a", duration: 5, request: Self.fresh, now: Self.t0)
        #expect(table.lapsed(now: Self.t0 + 5, limit: 10) == ["t"])
        // The adopter says a search may run 15 s from now; the trip's deadline (t0 + 60) wins.
        let adopted = table.hold(
            tripID: "t", owner: "b", duration: 5, request: SearchLeaseRequest(searchTime: 15), now: Self.t0 + 20)
        #expect(adopted == SearchLease(token: 2, remaining: 40))
        // The node that lost it cannot renew while b's lease is live, token or not.
        let stale = SearchLeaseRequest(token: 1, searchTime: 60)
        #expect(table.hold(tripID: "t", owner: "a", duration: 5, request: stale, now: Self.t0 + 21) == nil)
        // Once b's lapses too, a takes it back under a new token, never its old one.
        #expect(
            table.hold(tripID: "t", owner: "a", duration: 5, request: stale, now: Self.t0 + 25)
                == SearchLease(token: 3, remaining: 35))
        // The deadline passed: the lease says the search is due.
        #expect(
            table.hold(
                tripID: "t", owner: "a", duration: 5, request: SearchLeaseRequest(token: 3, searchTime: 0),
                now: Self.t0 + 61) == SearchLease(token: 3, remaining: -1))
    }

    @Test func aNewSearchOfTheSameTripStartsANewDeadlineAndALostRecordTakesTheAskedTime() {
        var table = SearchLeaseTable()
        _ = table.hold(tripID: "t", owner: "a", duration: 5, request: Self.fresh, now: Self.t0)
        // The trip became searching again (its driver cancelled) before the release was seen.
        #expect(
            table.hold(tripID: "t", owner: "a", duration: 5, request: Self.fresh, now: Self.t0 + 30)
                == SearchLease(token: 2, remaining: 60))
        table.release(tripID: "t", owner: "b")
        #expect(table.token(of: "t") == 2)
        table.release(tripID: "t", owner: "a")
        #expect(table.token(of: "t") == nil)
        // No record (the leases lost it): the time the node asks for is the search's.
        #expect(
            table.hold(
                tripID: "t", owner: "b", duration: 5, request: SearchLeaseRequest(searchTime: 12),
                now: Self.t0 + 40) == SearchLease(token: 3, remaining: 12))
    }

    @Test func lapsedLeasesComeEarliestFirstUpToTheLimit() {
        var table = SearchLeaseTable()
        for (index, trip) in ["c", "a", "b"].enumerated() {
            _ = table.hold(tripID: trip, owner: "n", duration: 5, request: Self.fresh, now: Self.t0 + Double(index))
        }
        #expect(table.lapsed(now: Self.t0 + 7, limit: 10) == ["c", "a", "b"])
        #expect(table.lapsed(now: Self.t0 + 6, limit: 10) == ["c", "a"])
        #expect(table.lapsed(now: Self.t0 + 7, limit: 1) == ["c"])
    }

    @Test func theEmbeddedOfferStoreRefusesAnOfferWhoseFenceIsStale() {
        let clock = Mutex(Self.t0)
        let leases = MemorySearchLeases(now: { clock.withLock { $0 } })
        let offers = MemoryOfferStore(leases: leases)
        let first = leases.hold(tripID: "t", owner: "a", duration: 5, request: Self.fresh)
        let offer = DispatchMachine.Offer(tripID: "t", driverID: "x", expiresAt: Self.t0 + 15)
        let fenceA = SearchFence(tripID: "t", token: first?.token ?? 0)
        #expect(offers.place(offer, now: Self.t0, fence: fenceA) == .placed)
        clock.withLock { $0 = Self.t0 + 6 }
        let second = leases.hold(tripID: "t", owner: "b", duration: 5, request: Self.fresh)
        #expect(second?.token == 2)
        let toY = DispatchMachine.Offer(tripID: "t", driverID: "y", expiresAt: Self.t0 + 21)
        #expect(offers.place(toY, now: Self.t0 + 6, fence: fenceA) == .fenced)
        // The trip is still out to x: the new holder is handed that offer rather than make a second one.
        let fenceB = SearchFence(tripID: "t", token: 2)
        #expect(offers.place(toY, now: Self.t0 + 6, fence: fenceB) == .tripOffered(offer))
        offers.remove(tripID: "t", driverID: "x")
        #expect(offers.place(toY, now: Self.t0 + 6, fence: fenceB) == .placed)
        let another = DispatchMachine.Offer(tripID: "u", driverID: "y", expiresAt: Self.t0 + 21)
        #expect(offers.place(another, now: Self.t0 + 6, fence: nil) == .driverBusy)
    }

    @Test func anAdoptedSearchTakesTheOfferItsLastNodeLeftOutAndMovesOnWhenItLapses() {
        var machine = DispatchMachine()
        let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
        machine.startSearch(tripID: "t", pickup: pickup, now: Self.t0)
        let left = DispatchMachine.Offer(tripID: "t", driverID: "x", expiresAt: Self.t0 + 9)
        machine.adoptOffer(left)
        #expect(machine.searches["t"]?.offer == left)
        #expect(machine.driversWithOffers == ["x"])
        // Nothing new goes out while it is live, however many candidates there are.
        #expect(machine.evaluate(now: Self.t0 + 8, candidates: ["t": ["y", "x"]]) == [])
        // It lapses: x has passed, y is offered the trip.
        let next = DispatchMachine.Offer(tripID: "t", driverID: "y", expiresAt: Self.t0 + 24)
        #expect(machine.evaluate(now: Self.t0 + 9, candidates: ["t": ["x", "y"]]) == [.withdraw(left), .offer(next)])
        // A search with an offer out adopts no other.
        machine.adoptOffer(DispatchMachine.Offer(tripID: "t", driverID: "z", expiresAt: Self.t0 + 30))
        #expect(machine.searches["t"]?.offer == next)
    }

    @Test func theEmbeddedGeoIndexJudgesSilenceAtTheCallersNow() {
        let geo = MemoryGeoIndex()
        geo.update(driverID: "old", coordinate: Coordinate(lat: 43.74, lng: 7.428), seenAt: Self.t0)
        geo.update(driverID: "new", coordinate: Coordinate(lat: 43.741, lng: 7.428), seenAt: Self.t0 + 30)
        let hits = geo.nearest(to: Coordinate(lat: 43.74, lng: 7.428), radius: 1000, limit: 10, now: Self.t0 + 60)
        #expect(hits.map(\.driverID) == ["old", "new"])
        #expect(hits.map(\.silence) == [60, 30])
        #expect(geo.evict(silentFor: 60, now: Self.t0 + 60) == [])
        #expect(geo.evict(silentFor: 60, now: Self.t0 + 60.001) == ["old"])
    }
}
