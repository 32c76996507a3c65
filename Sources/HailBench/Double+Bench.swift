/// Number formatting for the benchmark tables.
extension Double {
    /// The number with `digits` decimals, for tables.
    func fixed(_ digits: Int) -> String {
        var text = String(self.rounded(toPlaces: digits))
        if digits == 0, text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// Rounded to `places` decimal places.
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
