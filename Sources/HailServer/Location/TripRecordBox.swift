import HailCore

/// A trip record held out of line, so a driver's ingest state carries one pointer for it rather than the record's
/// 304 bytes inline: an idle driver serves no trip, and its state sits in the ingest store for as long as its stream
/// stays open.
final class TripRecordBox: Sendable, Hashable, Codable {
    /// The record; a change replaces the box.
    let record: TripRecord

    init(_ record: TripRecord) {
        self.record = record
    }

    /// Decodes a bare record, so the box leaves no trace in a stored state.
    init(from decoder: any Decoder) throws {
        record = try decoder.singleValueContainer().decode(TripRecord.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(record)
    }

    static func == (left: TripRecordBox, right: TripRecordBox) -> Bool {
        left.record == right.record
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(record)
    }
}
