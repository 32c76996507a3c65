/// One step of a schema: SQL applied once, in order, and counted in `PRAGMA user_version`.
///
/// Step N (counting from 1) brings the database to `user_version` N. Steps are append-only: editing a shipped
/// step does nothing to databases that already ran it. A step must not change `journal_mode` or `foreign_keys`,
/// which SQLite ignores inside the transaction that migrations run in.
public struct SQLiteMigration: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The script: one or more statements.
    public let sql: String

    /// A step running this script.
    public init(_ sql: String) { self.sql = sql }

    /// A step written as a string literal.
    public init(stringLiteral sql: String) { self.sql = sql }
}
