/// Placeholder until the SQLite wrapper lands.
enum HailStoragePlaceholder {}
