import Foundation
import HailCore
import HailProtocol

/// The page a share link opens: the shared trip alone, live. One self-contained page (no CDN, no tiles):
/// it reads the trip with the token from its own URL, then follows the trip's stream, and draws on a
/// canvas the streets around the trip (inlined by the server), the pickup, the dropoff and the car gliding
/// along the road path each position carries.
///
/// The rules of the rider's screen hold here too: a position not newer (by seq) than the one shown is
/// ignored; the pin is live under 6 s of age on the server's clock, updating to 20 s, locating beyond;
/// "Driver's location may be delayed" shows after 15 s; the fare appears once completed. A share token
/// reads one trip and nothing else, so the page shows nothing of any other.
enum SharePage {
    /// Metres of streets drawn around the pickup, the dropoff and the car.
    static let roadMargin = 600.0

    /// The page for `tripID`, now in `state`, over `roads` (flat `[lat1, lng1, lat2, lng2, ...]`).
    static func html(tripID: String, state: TripState, roads: [Double]) -> String {
        let roadNumbers = roads.map { String($0) }.joined(separator: ",")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Hail: a shared trip</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>
            body{margin:0;font:15px system-ui,sans-serif;background:#f4f5f7;color:#1b212c}
            #panel{padding:10px 14px;background:#fff;box-shadow:0 1px 3px #0002}
            #state{font-size:20px;font-weight:600}#eta,#pin,#fare{margin-left:12px}
            #delayed{display:none;background:#ffe8a3;padding:6px 14px}
            #map{width:100vw;height:calc(100vh - 90px);display:block}
            </style></head>
            <body><div id="panel"><span id="state" data-trip="\(safe(tripID))">\(safe(state.rawValue))</span>
            <span id="eta"></span><span id="pin"></span><span id="fare"></span>
            <div id="driver"></div></div>
            <div id="delayed">Driver's location may be delayed</div>
            <canvas id="map"></canvas>
            <script id="share-script">
            "use strict";
            const token = decodeURIComponent(location.pathname.split("/").pop());
            const tripID = document.getElementById("state").dataset.trip;
            const canvas = document.getElementById("map");
            const context = canvas.getContext("2d");
            const words = {searching: "Finding a driver", driverAssigned: "Driver on the way",
              driverArrived: "Driver is here", onTrip: "On the way", completed: "Arrived",
              cancelled: "Trip cancelled", noDriversFound: "No driver found"};
            let trip = null, serverOffset = 0, fix = null, from = null, path = null, movedAt = 0;
            const trail = [];
            const roads = [\(roadNumbers)];
            function decodePath(text) {
              const points = []; let index = 0, lat = 0, lng = 0;
              while (index < text.length) {
                for (const axis of [0, 1]) {
                  let shift = 0, result = 0, byte;
                  do { byte = text.charCodeAt(index++) - 63; result |= (byte & 31) << shift; shift += 5; } while (byte >= 32);
                  const delta = (result & 1) ? ~(result >> 1) : (result >> 1);
                  if (axis === 0) lat += delta; else lng += delta;
                }
                points.push({lat: lat / 1e5, lng: lng / 1e5});
              }
              return points;
            }
            function applyTrip(next) {
              if (trip && next.version <= trip.version) return;
              trip = next;
              if (next.driverLocation) applyFix(next.driverLocation, null, next.etaSeconds);
              render();
            }
            function applyFix(location, encodedPath, etaSeconds) {
              if (fix && location.seq <= fix.seq) return;
              from = here(performance.now()) || location.coordinate;
              path = encodedPath ? decodePath(encodedPath) : null;
              // The pin ages from when the phone took the fix (fixedAt), as the apps do.
              fix = {seq: location.seq, coordinate: location.coordinate,
                takenAt: Date.parse(location.fixedAt || location.receivedAt)};
              movedAt = performance.now();
              trail.push(location.coordinate);
              if (trip && etaSeconds != null) trip.etaSeconds = etaSeconds;
              render();
            }
            function here(now) {
              if (!fix) return null;
              const f = Math.min(1, (now - movedAt) / 1000);
              if (path && path.length > 1) {
                const at = f * (path.length - 1), i = Math.min(path.length - 2, Math.floor(at)), t = at - i;
                return {lat: path[i].lat + (path[i + 1].lat - path[i].lat) * t,
                  lng: path[i].lng + (path[i + 1].lng - path[i].lng) * t};
              }
              const start = from || fix.coordinate;
              return {lat: start.lat + (fix.coordinate.lat - start.lat) * f,
                lng: start.lng + (fix.coordinate.lng - start.lng) * f};
            }
            function render() {
              if (!trip) return;
              document.getElementById("state").textContent = words[trip.state] || trip.state;
              const tracking = ["driverAssigned", "driverArrived", "onTrip"].includes(trip.state);
              const age = fix ? (Date.now() + serverOffset - fix.takenAt) / 1000 : Infinity;
              const pin = !tracking ? "" : age < 6 ? "live" : age < 20 ? "updating" : "locating";
              document.getElementById("pin").textContent = pin && "Pin: " + pin;
              const eta = tracking && trip.state !== "driverArrived" && trip.etaSeconds != null && age < 20
                ? Math.max(1, Math.round(trip.etaSeconds / 60)) + " min" : "";
              document.getElementById("eta").textContent = eta;
              document.getElementById("delayed").style.display = tracking && fix && age > 15 ? "block" : "none";
              document.getElementById("fare").textContent = trip.state === "completed" && trip.fare
                ? "Fare " + (trip.fare.amountMinor / 100).toFixed(2) + " " + trip.fare.currency : "";
              const d = trip.driver;
              document.getElementById("driver").textContent = d ? d.name + " · " + d.carModel + " · " + d.plate : "";
            }
            function frame(now) {
              const width = canvas.clientWidth, height = canvas.clientHeight;
              if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
              context.clearRect(0, 0, width, height);
              if (trip) {
                const car = here(now);
                const points = [trip.pickup, trip.dropoff].concat(trail).concat(car ? [car] : []);
                const lats = points.map(p => p.lat), lngs = points.map(p => p.lng);
                const minLat = Math.min(...lats), maxLat = Math.max(...lats), minLng = Math.min(...lngs), maxLng = Math.max(...lngs);
                const scale = Math.min(width / Math.max(1e-4, (maxLng - minLng) * Math.cos(minLat * Math.PI / 180)),
                  height / Math.max(1e-4, maxLat - minLat)) * 0.8;
                const x = p => width / 2 + (p.lng - (minLng + maxLng) / 2) * Math.cos(minLat * Math.PI / 180) * scale;
                const y = p => height / 2 - (p.lat - (minLat + maxLat) / 2) * scale;
                context.strokeStyle = "#d5dae1"; context.lineWidth = 2; context.beginPath();
                for (let i = 0; i + 3 < roads.length; i += 4) {
                  context.moveTo(x({lat: roads[i], lng: roads[i + 1]}), y({lat: roads[i], lng: roads[i + 1]}));
                  context.lineTo(x({lat: roads[i + 2], lng: roads[i + 3]}), y({lat: roads[i + 2], lng: roads[i + 3]}));
                }
                context.stroke();
                context.strokeStyle = "#9aa4b2"; context.lineWidth = 3; context.beginPath();
                trail.forEach((p, i) => i ? context.lineTo(x(p), y(p)) : context.moveTo(x(p), y(p))); context.stroke();
                for (const [p, colour, label] of [[trip.pickup, "#1f9d55", "pickup"], [trip.dropoff, "#d64545", "dropoff"]]) {
                  context.fillStyle = colour; context.beginPath(); context.arc(x(p), y(p), 8, 0, 7); context.fill();
                  context.fillText(label, x(p) + 11, y(p) + 4);
                }
                if (car) { context.fillStyle = "#2b6cb0"; context.beginPath(); context.arc(x(car), y(car), 10, 0, 7); context.fill(); }
              }
              requestAnimationFrame(frame);
            }
            async function load() {
              const answer = await fetch("/v1/trips/" + encodeURIComponent(tripID), {headers: {Authorization: "Bearer " + token}});
              if (answer.ok) applyTrip(await answer.json());
              else document.getElementById("state").textContent = "This trip can no longer be followed.";
            }
            function follow() {
              const scheme = location.protocol === "https:" ? "wss://" : "ws://";
              const after = fix ? "&after=" + fix.seq : "";
              const socket = new WebSocket(scheme + location.host + "/v1/trips/" + encodeURIComponent(tripID) +
                "/live?access_token=" + encodeURIComponent(token) + after);
              socket.onmessage = event => {
                const message = JSON.parse(event.data);
                if (message.type === "hello") serverOffset = Date.parse(message.serverTime) - Date.now();
                else if (message.type === "tripUpdated") applyTrip(message.trip);
                else if (message.type === "driverMoved") applyFix(message, message.path, message.etaSeconds);
              };
              socket.onclose = () => {
                if (trip && ["completed", "cancelled", "noDriversFound"].includes(trip.state)) return;
                setTimeout(() => load().then(follow), 2000);
              };
            }
            load().then(follow);
            setInterval(render, 1000);
            requestAnimationFrame(frame);
            </script></body></html>
            """
    }

    /// The page for a share link that no longer opens: expired, ended with its trip, or not a share link.
    static func refused(status: Int, reason: String) -> String {
        let headline =
            status == 401
            ? "This link has expired." : status == 403 ? "This trip can no longer be followed." : "No such trip."
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Hail: link unavailable</title></head>
            <body style="font:16px system-ui,sans-serif;margin:40px">
            <h1 id="refused">\(headline)</h1><p>\(safe(reason))</p>
            <p>Ask the rider for a new link.</p></body></html>
            """
    }

    /// The refusal of a share link as a page, with the error's status.
    static func refusal(_ error: APIError) -> APIResponse {
        APIResponse(
            status: error.httpStatus, headers: [HailHeader.contentType: "text/html; charset=utf-8"],
            body: Data(refused(status: error.httpStatus, reason: error.message).utf8))
    }

    /// Text safe inside HTML: letters, digits and a few punctuation marks.
    static func safe(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter {
                    $0.properties.isAlphabetic || "0123456789-_ .,:;'()".unicodeScalars.contains($0)
                }))
    }
}
