import HailCore

/// The operator's fleet map. The live map arrives with the simulator; this page is its placeholder.
enum FleetPage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Hail fleet</title></head>
        <body><h1>Hail fleet</h1><p>The server is running. The live fleet map arrives with the simulator.</p>
        <p>Metrics: <a href="/metrics">/metrics</a></p></body></html>
        """
}

/// The page a share link opens. The live map arrives with the web issue; this shows the trip's state.
enum SharePage {
    static func html(tripID: String, state: TripState) -> String {
        let safeID = tripID.unicodeScalars.filter {
            $0.properties.isAlphabetic || "0123456789-_".unicodeScalars.contains($0)
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Hail trip</title></head>
            <body><h1>Shared trip</h1><p>Trip \(String(String.UnicodeScalarView(safeID))) is <strong>\(state.rawValue)</strong>.</p></body></html>
            """
    }
}
