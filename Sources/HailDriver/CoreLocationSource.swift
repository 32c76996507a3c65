#if canImport(CoreLocation)
    import CoreLocation
    import HailCore

    /// The phone's GPS as a `LocationSource`: CoreLocation set to the policy's accuracy and distance
    /// filter. A thin adapter: every decision lives in `LocationPolicy` and the pipeline.
    ///
    /// Its fix status is `current` with every fix and `unavailable` when CoreLocation reports it cannot
    /// get one (`CLError.locationUnknown`); a fix on demand is CoreLocation's latest location when under
    /// five seconds old.
    @MainActor
    public final class CoreLocationSource: LocationSource {
        private let manager = CLLocationManager()
        private let delegate: CoreLocationDelegate
        private nonisolated let stream: AsyncStream<LocationPoint>
        private nonisolated let statuses: AsyncStream<FixStatus>

        /// Creates the source; call `apply` with a policy to start it.
        public init() {
            let (stream, continuation) = AsyncStream.makeStream(
                of: LocationPoint.self, bufferingPolicy: .bufferingNewest(1000))
            self.stream = stream
            let (statuses, statusContinuation) = AsyncStream.makeStream(
                of: FixStatus.self, bufferingPolicy: .bufferingNewest(1))
            self.statuses = statuses
            delegate = CoreLocationDelegate(continuation: continuation, statuses: statusContinuation)
            manager.delegate = delegate
            manager.activityType = .automotiveNavigation
            manager.pausesLocationUpdatesAutomatically = false
            #if os(iOS)
                manager.allowsBackgroundLocationUpdates = true
            #endif
        }

        /// The fixes CoreLocation reports.
        public nonisolated func fixes() -> AsyncStream<LocationPoint> { stream }

        /// Current with each fix, unavailable when CoreLocation cannot get one.
        public nonisolated func fixStatus() -> AsyncStream<FixStatus> { statuses }

        /// CoreLocation's latest location, when it is under five seconds old and valid.
        public func currentFix() async -> LocationPoint? {
            guard let location = manager.location, location.horizontalAccuracy >= 0,
                -location.timestamp.timeIntervalSinceNow < 5
            else { return nil }
            return CoreLocationDelegate.point(location)
        }

        /// Sets accuracy and distance filter, or stops updates for an off policy.
        public func apply(_ policy: LocationPolicy) async {
            guard !policy.isOff else {
                manager.stopUpdatingLocation()
                return
            }
            manager.desiredAccuracy = Self.accuracy(policy.accuracy)
            manager.distanceFilter = policy.distanceFilter
            manager.startUpdatingLocation()
        }

        /// CoreLocation's constant for an accuracy; `balanced` has none on Apple platforms (see `LocationAccuracy`).
        static func accuracy(_ accuracy: LocationAccuracy) -> CLLocationAccuracy {
            switch accuracy {
            case .best: return kCLLocationAccuracyBest
            case .nearestTenMeters: return kCLLocationAccuracyNearestTenMeters
            case .balanced, .hundredMeters: return kCLLocationAccuracyHundredMeters
            }
        }
    }

    /// Receives CoreLocation's callbacks and hands each fix on as a `LocationPoint`.
    final class CoreLocationDelegate: NSObject, CLLocationManagerDelegate, Sendable {
        private let continuation: AsyncStream<LocationPoint>.Continuation
        private let statuses: AsyncStream<FixStatus>.Continuation

        init(continuation: AsyncStream<LocationPoint>.Continuation, statuses: AsyncStream<FixStatus>.Continuation) {
            self.continuation = continuation
            self.statuses = statuses
        }

        static func point(_ location: CLLocation) -> LocationPoint {
            LocationPoint(
                lat: location.coordinate.latitude, lng: location.coordinate.longitude,
                accuracy: location.horizontalAccuracy, heading: location.course, speed: location.speed,
                t: location.timestamp)
        }

        func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            for location in locations { continuation.yield(Self.point(location)) }
            if !locations.isEmpty { statuses.yield(.current) }
        }

        func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
            // locationUnknown: no fix for now, CoreLocation keeps trying; other errors change nothing here.
            if (error as? CLError)?.code == .locationUnknown { statuses.yield(.unavailable) }
        }
    }
#endif
