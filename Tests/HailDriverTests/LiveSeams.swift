import HailClient
import HailDriver

// The same conformances as the app's Drive/DriverSeams.swift: tests cannot import the executable.

extension DriverHTTPAPI: DriverAPI {}
extension DriverLiveChannel: DriverChannel {}
extension ClientError: DriverCallFailure {}
