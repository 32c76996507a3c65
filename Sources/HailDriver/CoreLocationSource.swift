#if canImport(CoreLocation)
    import CoreLocation
    import HailCore

    /// The phone's GPS as a `LocationSource`: CoreLocation set to the policy's accuracy and distance
    /// filter. A thin adapter: every decision lives in `LocationPolicy` and the pipeline.
    @MainActor
    public final class CoreLocationSource: LocationSource {
        private let manager = CLLocationManager()
        private let delegate: CoreLocationDelegate
        private nonisolated let stream: AsyncStream<LocationPoint>

        /// Creates the source; call `apply` with a policy to start it.
        public init() {
            let (stream, continuation) = AsyncStream.makeStream(
                of: LocationPoint.self, bufferingPolicy: .bufferingNewest(1000))
            self.stream = stream
            delegate = CoreLocationDelegate(continuation: continuation)
            manager.delegate = delegate
            manager.activityType = .automotiveNavigation
            manager.pausesLocationUpdatesAutomatically = false
            #if os(iOS)
                manager.allowsBackgroundLocationUpdates = true
            #endif
        }

        /// The fixes CoreLocation reports.
        public nonisolated func fixes() -> AsyncStream<LocationPoint> { stream }

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

        init(continuation: AsyncStream<LocationPoint>.Continuation) {
            self.continuation = continuation
        }

        func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            for location in locations {
                continuation.yield(
                    LocationPoint(
                        lat: location.coordinate.latitude, lng: location.coordinate.longitude,
                        accuracy: location.horizontalAccuracy, heading: location.course, speed: location.speed,
                        t: location.timestamp))
            }
        }
    }
#endif
