import Foundation
import HailAppStore
import Testing

@Suite("The rider's durable cursor")
struct SQLiteCursorStoreTests {
    @Test func aSavedCursorSurvivesReopeningAndNeverGoesBack() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-cursor-\(UUID().uuidString).db")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let first = try await SQLiteCursorStore.open(path: path)
        #expect(try await first.load(tripID: "trip-1") == nil)
        try await first.save(42, tripID: "trip-1")
        try await first.save(40, tripID: "trip-1")  // a late writer
        try await first.save(7, tripID: "trip-2")
        await first.close()
        let reopened = try await SQLiteCursorStore.open(path: path)
        #expect(try await reopened.load(tripID: "trip-1") == 42)
        #expect(try await reopened.load(tripID: "trip-2") == 7)
        await reopened.close()
    }
}
