import Foundation
import HailServer

extension PostgresTripStore {
    /// The searching trips' ids alone, without reading and decoding every active record: each node asks every
    /// few seconds (`Dispatcher.adoptionScanRounds`).
    public func searchingTripIDs() async throws -> [String] {
        try await pool.run { connection in
            try connection.query("SELECT id FROM trips WHERE active AND state = 'searching' ORDER BY id").map {
                try $0.string(0)
            }
        }
    }
}
