/// Placeholder until the simulator lands.
enum HailSimPlaceholder {}
