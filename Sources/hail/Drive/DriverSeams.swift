import HailClient
import HailDriver

// HailClient may not import HailDriver, so the live transports meet the runtime's seams here.

extension DriverHTTPAPI: DriverAPI {}
extension DriverLiveChannel: DriverChannel {}
extension ClientError: DriverCallFailure {}
