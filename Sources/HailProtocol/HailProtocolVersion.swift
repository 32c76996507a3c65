/// The version of the wire protocol this module speaks.
public enum HailProtocolVersion {
    /// The API version, the first segment of every route path under `/v1`.
    public static let api = "v1"
}
