import HailCore

/// The operator's live fleet map: one self-contained page (no CDN, no tiles) that polls `/v1/fleet` once
/// a second with the `access_token` from its own URL and draws every car and active trip on a canvas.
///
/// Cars glide from their last drawn spot to the new one over the second between polls. The streets come
/// once from `/v1/fleet/roads`; a server without roads leaves the page to draw them as the cars drive
/// them (every position seen leaves a faint dot). The frame widens to fit every point seen.
enum FleetPage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Hail fleet</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        body{margin:0;font:14px system-ui,sans-serif;background:#11151c;color:#dde;overflow:hidden}
        #bar{padding:6px 10px;background:#1b212c;height:22px}#map{width:100vw;height:calc(100vh - 34px);display:block}
        .key span{display:inline-block;width:10px;height:10px;border-radius:5px;margin:0 3px 0 10px}
        </style></head>
        <body><div id="bar">Hail fleet &middot; <span id="status">connecting…</span>
        <span class="key"><span style="background:#9aa4b2"></span>waiting<span style="background:#4aa3ff"></span>to pickup
        <span style="background:#b26bff"></span>arrived<span style="background:#3ddc84"></span>on trip
        <span style="background:#f5c542"></span>searching rider</span></div>
        <canvas id="map"></canvas>
        <script id="fleet-script">
        "use strict";
        const token = new URLSearchParams(location.search).get("access_token") || "";
        const canvas = document.getElementById("map");
        const context = canvas.getContext("2d");
        const colours = {idle: "#9aa4b2", driverAssigned: "#4aa3ff", driverArrived: "#b26bff", onTrip: "#3ddc84",
          searching: "#f5c542"};
        const bounds = {minLat: Infinity, maxLat: -Infinity, minLng: Infinity, maxLng: -Infinity};
        const trail = new Map();
        let cars = new Map();
        let trips = [];
        let fetchedAt = performance.now();
        let roads = [];
        function widen(p) {
          bounds.minLat = Math.min(bounds.minLat, p.lat); bounds.maxLat = Math.max(bounds.maxLat, p.lat);
          bounds.minLng = Math.min(bounds.minLng, p.lng); bounds.maxLng = Math.max(bounds.maxLng, p.lng);
        }
        function project(p) {
          const w = canvas.width, h = canvas.height, pad = 30;
          const k = Math.cos(bounds.minLat * Math.PI / 180);
          const spanX = Math.max((bounds.maxLng - bounds.minLng) * k, 1e-4);
          const spanY = Math.max(bounds.maxLat - bounds.minLat, 1e-4);
          const scale = Math.min((w - 2 * pad) / spanX, (h - 2 * pad) / spanY);
          return [pad + (p.lng - bounds.minLng) * k * scale, h - pad - (p.lat - bounds.minLat) * scale];
        }
        function remember(p) {
          // About 5 m cells: enough dots to draw a street, few enough to keep.
          const key = Math.round(p.lat * 20000) + ":" + Math.round(p.lng * 20000);
          if (!trail.has(key) && trail.size < 50000) trail.set(key, p);
        }
        function glide(car, now) {
          const t = Math.min(1, (now - fetchedAt) / 1000);
          return {lat: car.from.lat + (car.to.lat - car.from.lat) * t, lng: car.from.lng + (car.to.lng - car.from.lng) * t};
        }
        function frame(now) {
          canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight;
          context.clearRect(0, 0, canvas.width, canvas.height);
          if (isFinite(bounds.minLat)) {
            context.strokeStyle = "#2f3a4b"; context.lineWidth = 1.5; context.beginPath();
            for (let i = 0; i + 3 < roads.length; i += 4) {
              const [x1, y1] = project({lat: roads[i], lng: roads[i + 1]});
              const [x2, y2] = project({lat: roads[i + 2], lng: roads[i + 3]});
              context.moveTo(x1, y1); context.lineTo(x2, y2);
            }
            context.stroke(); context.lineWidth = 1;
            context.fillStyle = "#3a4556";
            if (roads.length === 0) {
              for (const p of trail.values()) { const [x, y] = project(p); context.fillRect(x - 1, y - 1, 2, 2); }
            }
            const drawn = {};
            for (const [id, car] of cars) {
              const [x, y] = project(glide(car, now));
              drawn[id] = [x, y];
              context.beginPath(); context.arc(x, y, 5, 0, 2 * Math.PI);
              context.fillStyle = colours[car.state] || colours.idle; context.fill();
              context.strokeStyle = "#000"; context.stroke();
            }
            for (const trip of trips) {
              const target = trip.state === "onTrip" ? trip.dropoff : trip.pickup;
              const [px, py] = project(target);
              context.beginPath(); context.arc(px, py, 7, 0, 2 * Math.PI);
              context.strokeStyle = colours[trip.state] || "#fff"; context.stroke();
              const from = trip.driverID && drawn[trip.driverID];
              if (from) {
                context.setLineDash([4, 3]); context.beginPath(); context.moveTo(from[0], from[1]);
                context.lineTo(px, py); context.stroke(); context.setLineDash([]);
              }
            }
          }
          requestAnimationFrame(frame);
        }
        function apply(fleet, now) {
          const next = new Map();
          for (const car of fleet.cars) {
            const to = car.location.coordinate;
            widen(to); remember(to);
            const old = cars.get(car.driverID);
            next.set(car.driverID, {from: old ? glide(old, now) : to, to, state: car.tripState || "idle"});
          }
          for (const trip of fleet.trips) { widen(trip.pickup); widen(trip.dropoff); }
          cars = next; trips = fleet.trips; fetchedAt = now;
          const counts = {};
          for (const trip of fleet.trips) counts[trip.state] = (counts[trip.state] || 0) + 1;
          const summary = Object.keys(counts).map(k => k + " " + counts[k]).join(", ") || "no active trips";
          document.getElementById("status").textContent = fleet.cars.length + " cars · " + summary;
        }
        async function tick() {
          try {
            const answer = await fetch("/v1/fleet?access_token=" + encodeURIComponent(token));
            if (!answer.ok) throw new Error("HTTP " + answer.status);
            apply(await answer.json(), performance.now());
          } catch (error) {
            document.getElementById("status").textContent = "fleet unavailable: " + error.message;
          }
        }
        async function loadRoads() {
          try {
            const answer = await fetch("/v1/fleet/roads?access_token=" + encodeURIComponent(token));
            if (!answer.ok) return;
            roads = (await answer.json()).segments || [];
            for (let i = 0; i + 1 < roads.length; i += 2) widen({lat: roads[i], lng: roads[i + 1]});
          } catch (error) {
            roads = [];
          }
        }
        loadRoads();
        tick();
        setInterval(tick, 1000);
        requestAnimationFrame(frame);
        </script></body></html>
        """
}
