import Testing

@testable import HailDriver

@Suite("Asking the driver for location: while using, then always with the reason, then Settings")
struct LocationAuthorizationFlowTests {
    @Test func aNewDriverIsAskedWhileUsingThenToldWhyThenAskedAlways() {
        var flow = LocationAuthorizationFlow(authorization: .notDetermined)
        #expect(flow.canTrack == false)
        #expect(flow.goingOnline() == .requestWhenInUse)
        #expect(flow.authorizationChanged(to: .whenInUse) == .explainAlways)
        #expect(flow.canTrack)
        #expect(flow.reasonAccepted() == .requestAlways)
        #expect(flow.authorizationChanged(to: .always) == .none)
        #expect(flow.goingOnline() == .none)
    }

    @Test func aDriverWhoKeepsWhileUsingIsAskedForAlwaysOnceAndStillTracked() {
        var flow = LocationAuthorizationFlow(authorization: .whenInUse)
        #expect(flow.goingOnline() == .explainAlways)
        #expect(flow.reasonAccepted() == .requestAlways)
        // The prompt was dismissed: iOS would not show it again.
        #expect(flow.authorizationChanged(to: .whenInUse) == .none)
        #expect(flow.reasonAccepted() == .none)
        #expect(flow.goingOnline() == .none)
        #expect(flow.canTrack)
    }

    @Test func aRefusalCanOnlyBeUndoneInSettings() {
        var flow = LocationAuthorizationFlow(authorization: .notDetermined)
        #expect(flow.goingOnline() == .requestWhenInUse)
        #expect(flow.authorizationChanged(to: .denied) == .openSettings)
        #expect(flow.goingOnline() == .openSettings)
        #expect(flow.canTrack == false)
        #expect(LocationAuthorizationFlow(authorization: .restricted).canTrack == false)
    }

    @Test func permissionRevokedMidShiftStopsTrackingAndPointsToSettings() {
        var flow = LocationAuthorizationFlow(authorization: .always)
        #expect(flow.goingOnline() == .none)
        #expect(flow.authorizationChanged(to: .denied) == .openSettings)
        #expect(flow.canTrack == false)
        // Granted again in Settings: back on shift without another prompt.
        #expect(flow.authorizationChanged(to: .always) == .none)
        #expect(flow.canTrack)
    }
}
