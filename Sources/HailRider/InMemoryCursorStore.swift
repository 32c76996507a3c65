/// A cursor store that lives as long as the process: for previews and for tests that model an app kill
/// by building a second model on the same store.
public actor InMemoryCursorStore: CursorStore {
    private var cursors: [String: Int64]

    /// Creates a store, optionally with cursors already in it.
    public init(_ cursors: [String: Int64] = [:]) { self.cursors = cursors }

    /// The stored cursor of `tripID`.
    public func load(tripID: String) -> Int64? { cursors[tripID] }

    /// Stores `seq` for `tripID`.
    public func save(_ seq: Int64, tripID: String) { cursors[tripID] = seq }
}
