/// The version of the wire protocol this module speaks, sent by clients in `X-Hail-Client`.
public enum HailProtocolVersion {
    /// The API version in every route path.
    public static let api = "v1"
}
