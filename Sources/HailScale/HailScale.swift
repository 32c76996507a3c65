/// Placeholder until the scaled stores land.
enum HailScalePlaceholder {}
