import Foundation
import HailCore

/// Where the driver card a rider sees comes from.
public protocol DriverDirectory: Sendable {
    /// The card for `driverID`.
    func card(for driverID: String) async -> Driver
}

/// The development directory: a stable, made-up card derived from the driver's id, so a fresh server
/// and the simulator work without an onboarding system. A real deployment plugs in its own.
public struct GeneratedDriverDirectory: DriverDirectory {
    private static let names = ["Asha", "Yusuf", "Marta", "Kenji", "Lucia", "Omar", "Ines", "Pavel", "Nadia", "Theo"]
    private static let cars = ["Toyota Prius", "Renault Zoe", "Peugeot 508", "Tesla Model 3", "Skoda Octavia"]

    /// Creates the directory.
    public init() {}

    /// A card whose every field is a pure function of the id.
    public func card(for driverID: String) async -> Driver {
        // FNV-1a: a stable hash across runs and nodes (Swift's Hasher is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in driverID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let name = Self.names[Int(hash % UInt64(Self.names.count))]
        let car = Self.cars[Int((hash / 16) % UInt64(Self.cars.count))]
        let plate = String(format: "MC %04d", Int((hash / 256) % 10_000))
        let rating = 4.5 + Double((hash / 65_536) % 6) / 10
        let encoded = driverID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "driver"
        return Driver(
            id: driverID, name: name, carModel: car, plate: plate, rating: rating,
            photoURL: URL(string: "https://hail.invalid/drivers/\(encoded).jpg")!)
    }
}
