/// What the driver's app asks for location, step by step, as seed 003 has it: "while using" first (iOS offers
/// "Always" only after that), then "Always" once the driver has read why, and Settings when it was refused. Pure:
/// each event returns the one step the app takes (a system prompt, the app's own explanation, a link to Settings).
public struct LocationAuthorizationFlow: Sendable, Hashable {
    /// What the system has granted (`CLAuthorizationStatus`).
    public enum Authorization: Sendable, Hashable, CaseIterable {
        /// Never asked.
        case notDetermined
        /// While the app is in use (with a background activity session, also while it is in the background).
        case whenInUse
        /// Always: the app may be relaunched in the background to resume the shift's tracking.
        case always
        /// Refused by the driver.
        case denied
        /// Not allowed on this phone (parental controls, a profile).
        case restricted
    }

    /// The step the app takes.
    public enum Step: Sendable, Hashable {
        /// Nothing to ask.
        case none
        /// Call `requestWhenInUseAuthorization()`.
        case requestWhenInUse
        /// Show the app's reason for "Always" (offers and tracking go on after the app is closed); then
        /// `reasonAccepted()`.
        case explainAlways
        /// Call `requestAlwaysAuthorization()`.
        case requestAlways
        /// Only Settings can change it: show why location is needed, with a link there.
        case openSettings
    }

    /// What the system has granted, as last reported.
    public private(set) var authorization: Authorization
    private var alwaysAsked = false

    /// A flow starting from what the system reports now.
    public init(authorization: Authorization) { self.authorization = authorization }

    /// Whether the driver's position can be tracked on shift at all.
    public var canTrack: Bool { authorization == .whenInUse || authorization == .always }

    /// The driver wants to go online.
    public mutating func goingOnline() -> Step {
        switch authorization {
        case .notDetermined: .requestWhenInUse
        case .whenInUse: alwaysAsked ? .none : .explainAlways
        case .always: .none
        case .denied, .restricted: .openSettings
        }
    }

    /// The driver read the reason for "Always" and agreed to be asked; iOS shows that prompt once, so it is asked
    /// once.
    public mutating func reasonAccepted() -> Step {
        guard authorization == .whenInUse, !alwaysAsked else { return .none }
        alwaysAsked = true
        return .requestAlways
    }

    /// The system reported `new` (a prompt answered, or the driver changed it in Settings mid-shift).
    public mutating func authorizationChanged(to new: Authorization) -> Step {
        let old = authorization
        authorization = new
        switch new {
        case .notDetermined, .always: return .none
        case .whenInUse: return old == .notDetermined && !alwaysAsked ? .explainAlways : .none
        case .denied, .restricted: return .openSettings
        }
    }
}
