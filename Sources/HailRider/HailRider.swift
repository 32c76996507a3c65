/// Placeholder until the rider core lands.
enum HailRiderPlaceholder {}
