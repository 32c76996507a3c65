/// Placeholder until the driver core lands.
enum HailDriverPlaceholder {}
