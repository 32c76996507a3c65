import Foundation
import Testing

@testable import HailNet

@Suite struct SessionTableTests {
    private func table(_ count: Int) -> (SessionTable, [WireSession]) {
        var table = SessionTable()
        let sessions = (1...count).map { WireSession(id: UInt64($0)) }
        for session in sessions { table.insert(session) }
        return (table, sessions)
    }

    @Test func twentySlicesVisitEverySessionOnce() {
        var (table, _) = table(45)
        var visited: [UInt64] = []
        for _ in 0..<15 {
            let slice = table.nextSlice(of: 20)
            #expect(slice.count == 3)
            visited += slice.map(\.id)
        }
        #expect(visited.sorted() == Array(1...45))
        // The sixteenth slice starts the next round at the first session again.
        #expect(table.nextSlice(of: 20).map(\.id) == [1, 2, 3])
    }

    @Test func aRemovedSessionIsGoneAndTheLastTakesItsPlace() {
        var (table, sessions) = table(5)
        table.remove(id: 2)
        #expect(table[2] == nil)
        #expect(table.count == 4)
        #expect(sessions[1].tableSlot == -1)
        #expect(sessions[4].tableSlot == 1)
        #expect(table.all.map(\.id) == [1, 5, 3, 4])
        // Removing what is not there, or inserting twice, changes nothing.
        table.remove(id: 2)
        table.insert(sessions[0])
        #expect(table.all.map(\.id) == [1, 5, 3, 4])
        #expect(table[5]?.id == 5)
    }

    @Test func aSmallTableGivesOneSessionPerSliceAndAnEmptyOneNone() {
        var (table, _) = table(3)
        #expect(table.nextSlice(of: 20).map(\.id) == [1])
        #expect(table.nextSlice(of: 20).map(\.id) == [2])
        #expect(table.nextSlice(of: 20).map(\.id) == [3])
        #expect(table.nextSlice(of: 20).map(\.id) == [1])
        var empty = SessionTable()
        #expect(empty.nextSlice(of: 20).isEmpty)
    }
}

@Suite struct LoopPlacementTests {
    /// Loop i goes on the i-th core this process may use, and loops past the last core start again at the first.
    @Test func loopsTakeTheAllowedCoresInTurn() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let placed = try (0..<cores).map { try #require(EventLoopOptions.core(forLoop: $0)) }
        #expect(Set(placed).count == cores)
        #expect(placed == placed.sorted())
        #expect(EventLoopOptions.core(forLoop: cores) == placed[0])
        #expect(EventLoopOptions.core(forLoop: cores + 1) == placed[min(1, cores - 1)])
    }
}
