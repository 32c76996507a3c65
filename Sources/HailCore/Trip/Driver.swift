import Foundation

/// The driver as the rider sees them on the driver card.
public struct Driver: Codable, Sendable, Hashable, Identifiable {
    /// The driver's account id, the subject of their token.
    public var id: String
    /// The name shown to the rider.
    public var name: String
    /// Make and model of the car, such as "Toyota Prius".
    public var carModel: String
    /// The licence plate, the thing a rider looks for at the kerb.
    public var plate: String
    /// The average rating, 1 to 5.
    public var rating: Double
    /// Where the driver's photo can be fetched.
    public var photoURL: URL

    /// Creates a driver card.
    public init(id: String, name: String, carModel: String, plate: String, rating: Double, photoURL: URL) {
        self.id = id
        self.name = name
        self.carModel = carModel
        self.plate = plate
        self.rating = rating
        self.photoURL = photoURL
    }
}
