import HailCore
import Testing

@Test func distanceBetweenTwoPointsInMonaco() {
    let casino = Coordinate(lat: 43.7396, lng: 7.4276)
    let palace = Coordinate(lat: 43.7314, lng: 7.4197)
    #expect(Int(casino.distance(to: palace).rounded()) == 1111)
}
