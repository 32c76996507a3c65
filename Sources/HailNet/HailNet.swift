/// Placeholder until the libwebsockets wrapper lands.
enum HailNetPlaceholder {}
