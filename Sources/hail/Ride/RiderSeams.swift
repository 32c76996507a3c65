import HailClient
import HailRider

// HailClient may not import HailRider, so the live transports meet the rider's seams here, where both
// modules are visible; the methods already match, the conformances only declare it.
extension RiderHTTPAPI: TripAPI {}
extension RiderLiveChannel: LiveTripChannel {}
