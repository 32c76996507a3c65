import HailCore

/// The operator's live fleet map: one self-contained page (no CDN, no tiles) that polls `/v1/fleet` once
/// a second with the `access_token` from its own URL and draws every car and active trip on an SVG.
///
/// The frame fits the points seen so far, so the map needs no server-side idea of the city; roads
/// arrive when the server serves its graph.
enum FleetPage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Hail fleet</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        body{margin:0;font:14px system-ui,sans-serif;background:#11151c;color:#dde}
        #bar{padding:6px 10px;background:#1b212c}#map{width:100vw;height:calc(100vh - 34px);display:block}
        .car{stroke:#000;stroke-width:1}.searching{fill:#f5c542}.driverAssigned{fill:#4aa3ff}
        .driverArrived{fill:#b26bff}.onTrip{fill:#3ddc84}.idle{fill:#9aa4b2}.pickup{fill:none;stroke:#f5c542}
        .leg{stroke:#4aa3ff;stroke-dasharray:4 3;stroke-width:1}
        </style></head>
        <body><div id="bar">Hail fleet &middot; <span id="status">connecting…</span></div>
        <svg id="map" xmlns="http://www.w3.org/2000/svg"><g id="grid"></g><g id="trips"></g><g id="cars"></g></svg>
        <script id="fleet-script">
        "use strict";
        const token = new URLSearchParams(location.search).get("access_token") || "";
        const svg = document.getElementById("map");
        const NS = "http://www.w3.org/2000/svg";
        const bounds = {minLat: Infinity, maxLat: -Infinity, minLng: Infinity, maxLng: -Infinity};
        function widen(p) {
          bounds.minLat = Math.min(bounds.minLat, p.lat); bounds.maxLat = Math.max(bounds.maxLat, p.lat);
          bounds.minLng = Math.min(bounds.minLng, p.lng); bounds.maxLng = Math.max(bounds.maxLng, p.lng);
        }
        function project(p) {
          const w = svg.clientWidth, h = svg.clientHeight, pad = 30;
          const k = Math.cos(bounds.minLat * Math.PI / 180);
          const spanX = Math.max((bounds.maxLng - bounds.minLng) * k, 1e-4);
          const spanY = Math.max(bounds.maxLat - bounds.minLat, 1e-4);
          const scale = Math.min((w - 2 * pad) / spanX, (h - 2 * pad) / spanY);
          return [pad + (p.lng - bounds.minLng) * k * scale, h - pad - (p.lat - bounds.minLat) * scale];
        }
        function el(name, attrs) {
          const node = document.createElementNS(NS, name);
          for (const key in attrs) node.setAttribute(key, attrs[key]);
          return node;
        }
        function drawGrid() {
          const grid = document.getElementById("grid");
          grid.replaceChildren();
          if (!isFinite(bounds.minLat)) return;
          for (let i = 0; i <= 10; i++) {
            const lat = bounds.minLat + (bounds.maxLat - bounds.minLat) * i / 10;
            const lng = bounds.minLng + (bounds.maxLng - bounds.minLng) * i / 10;
            const [x1, y1] = project({lat, lng: bounds.minLng}), [x2, y2] = project({lat, lng: bounds.maxLng});
            grid.appendChild(el("line", {x1, y1, x2, y2, stroke: "#263040"}));
            const [x3, y3] = project({lat: bounds.minLat, lng}), [x4, y4] = project({lat: bounds.maxLat, lng});
            grid.appendChild(el("line", {x1: x3, y1: y3, x2: x4, y2: y4, stroke: "#263040"}));
          }
        }
        function draw(fleet) {
          for (const car of fleet.cars) widen(car.location.coordinate);
          for (const trip of fleet.trips) { widen(trip.pickup); widen(trip.dropoff); }
          drawGrid();
          const positions = {};
          const cars = document.getElementById("cars");
          cars.replaceChildren();
          for (const car of fleet.cars) {
            const [x, y] = project(car.location.coordinate);
            positions[car.driverID] = [x, y];
            const dot = el("circle", {cx: x, cy: y, r: 5, class: "car " + (car.tripState || "idle")});
            const title = el("title", {});
            title.textContent = car.driverID + (car.tripState ? " · " + car.tripState : " · waiting");
            dot.appendChild(title);
            cars.appendChild(dot);
          }
          const trips = document.getElementById("trips");
          trips.replaceChildren();
          const counts = {};
          for (const trip of fleet.trips) {
            counts[trip.state] = (counts[trip.state] || 0) + 1;
            const [px, py] = project(trip.state === "onTrip" ? trip.dropoff : trip.pickup);
            trips.appendChild(el("circle", {cx: px, cy: py, r: 7, class: "pickup"}));
            const from = trip.driverID && positions[trip.driverID];
            if (from) trips.appendChild(el("line", {x1: from[0], y1: from[1], x2: px, y2: py, class: "leg"}));
          }
          const summary = Object.keys(counts).map(k => k + " " + counts[k]).join(", ") || "no active trips";
          document.getElementById("status").textContent =
            fleet.cars.length + " cars · " + summary + " · " + fleet.at;
        }
        async function tick() {
          try {
            const answer = await fetch("/v1/fleet?access_token=" + encodeURIComponent(token));
            if (!answer.ok) throw new Error("HTTP " + answer.status);
            draw(await answer.json());
          } catch (error) {
            document.getElementById("status").textContent = "fleet unavailable: " + error.message;
          }
        }
        tick();
        setInterval(tick, 1000);
        </script></body></html>
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
