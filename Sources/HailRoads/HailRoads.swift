/// Placeholder until the road network lands.
enum HailRoadsPlaceholder {}
