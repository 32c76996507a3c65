#if os(iOS)
    import CoreLocation
    import HailCore

    /// The phone's GPS on iOS 17's live updates, the way seed 004 names for a driver on shift:
    /// `CLLocationUpdate.liveUpdates(.automotiveNavigation)` held in the background by a
    /// `CLBackgroundActivitySession` while the policy is on.
    ///
    /// Every decision is `LiveUpdateMapping`'s, tested on Linux: a stationary update is `standing` with the fix it
    /// stopped at, so a car waiting at the pickup keeps a fresh pin; `locationUnavailable` and a denied
    /// authorization (iOS 18's signals; on iOS 17 an update without a location says nothing) are `unavailable`.
    /// Not compiled by this repository's Linux CI (README, "The app cores on iOS").
    @MainActor
    public final class LiveUpdatesLocationSource: LocationSource {
        private nonisolated let stream: AsyncStream<LocationPoint>
        private nonisolated let continuation: AsyncStream<LocationPoint>.Continuation
        private nonisolated let statuses: AsyncStream<FixStatus>
        private nonisolated let statusContinuation: AsyncStream<FixStatus>.Continuation
        private var mapping = LiveUpdateMapping()
        private var distanceFilter: Double = 0
        private var updates: Task<Void, Never>?
        private var session: CLBackgroundActivitySession?
        private var latest: LocationPoint?

        /// Creates the source; call `apply` with a policy to start it.
        public init() {
            (stream, continuation) = AsyncStream.makeStream(
                of: LocationPoint.self, bufferingPolicy: .bufferingNewest(1000))
            (statuses, statusContinuation) = AsyncStream.makeStream(
                of: FixStatus.self, bufferingPolicy: .bufferingNewest(1))
        }

        /// The fixes the live updates give, through the mapping.
        public nonisolated func fixes() -> AsyncStream<LocationPoint> { stream }

        /// Current, standing or no fix, as the mapping says.
        public nonisolated func fixStatus() -> AsyncStream<FixStatus> { statuses }

        /// The latest location the updates carried, when under five seconds old.
        public func currentFix() async -> LocationPoint? {
            guard let latest, -latest.t.timeIntervalSinceNow < 5 else { return nil }
            return latest
        }

        /// Starts the updates and the background session, or ends both for an off policy; the policy's distance
        /// filter applies to the fixes to come.
        public func apply(_ policy: LocationPolicy) async {
            guard !policy.isOff else {
                updates?.cancel()
                updates = nil
                session?.invalidate()
                session = nil
                return
            }
            distanceFilter = policy.distanceFilter
            guard updates == nil else { return }
            session = CLBackgroundActivitySession()
            updates = Task { [weak self] in
                do {
                    for try await update in CLLocationUpdate.liveUpdates(.automotiveNavigation) {
                        guard let self else { return }
                        self.receive(Self.snapshot(update))
                    }
                } catch {}
            }
        }

        private func receive(_ update: LiveLocationUpdate) {
            if let location = update.location, !update.authorizationDenied { latest = location }
            let output = mapping.map(update, distanceFilter: distanceFilter)
            if let status = output.status { statusContinuation.yield(status) }
            if let fix = output.fix { continuation.yield(fix) }
        }

        /// The update without CoreLocation: its location when valid, and the signals the OS version has.
        nonisolated static func snapshot(_ update: CLLocationUpdate) -> LiveLocationUpdate {
            let location = update.location.flatMap { $0.horizontalAccuracy >= 0 ? CoreLocationDelegate.point($0) : nil }
            if #available(iOS 18.0, *) {
                return LiveLocationUpdate(
                    location: location, stationary: update.stationary, locationUnavailable: update.locationUnavailable,
                    authorizationDenied: update.authorizationDenied || update.authorizationDeniedGlobally
                        || update.authorizationRestricted)
            }
            return LiveLocationUpdate(location: location, stationary: update.isStationary)
        }
    }
#endif
