import HailCore

/// The operator's console: one page on Leaflet (served by this server from the system's copy, no CDN, no
/// tiles) that draws the streets of `/v1/fleet/roads` as vector layers and follows the fleet on the
/// operator's stream `/v1/fleet/live` with the `access_token` from its own URL.
///
/// Cars glide along the road path each `carsMoved` carries, over about the second between two readings,
/// drawn as arrows turned to their heading; filters by trip state; a side panel with the server's live
/// numbers; a click on a car or a trip's pin opens its card. `window.hail` exposes the page's state for the
/// browser tests.
enum FleetPage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Hail fleet</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/assets/leaflet/leaflet.css">
        <style>
        body{margin:0;font:14px system-ui,sans-serif;background:#11151c;color:#dde;overflow:hidden}
        #bar{padding:6px 10px;background:#1b212c;height:22px;white-space:nowrap}
        #map{position:absolute;top:34px;left:0;right:300px;bottom:0;background:#11151c}
        #side{position:absolute;top:34px;right:0;width:300px;bottom:0;background:#161b24;overflow:auto;
          box-sizing:border-box;padding:10px;border-left:1px solid #2a3342}
        #side h2{font-size:13px;margin:12px 0 6px;color:#9aa4b2;text-transform:uppercase;letter-spacing:.05em}
        #side table{width:100%;border-collapse:collapse}#side td{padding:2px 0}#side td+td{text-align:right}
        .over{color:#ff6b6b}.ok{color:#3ddc84}
        label.filter{margin-left:10px;cursor:pointer}label.filter span{display:inline-block;width:10px;height:10px;
          border-radius:5px;margin:0 3px}
        .car{width:18px;height:18px}.car svg{width:18px;height:18px;display:block;transition:none}
        .car.selected svg{filter:drop-shadow(0 0 4px #fff)}
        #card{display:none;background:#1f2633;border-radius:6px;padding:8px;margin-top:6px}
        #card dt{color:#9aa4b2;font-size:12px}#card dd{margin:0 0 6px}
        #faults-server button,#faults button{margin:4px 4px 0 0;background:#2a3342;color:#dde;border:1px solid #46536a;border-radius:4px;
          padding:4px 6px;cursor:pointer}#fault-answer,#demo-answer{margin-top:6px;color:#f5c542}
        #missing{display:none;position:absolute;top:60px;left:20px;right:320px;background:#3b1d1d;padding:16px;
          border-radius:6px;z-index:2000}
        .leaflet-container{background:#11151c}
        </style></head>
        <body><div id="bar">Hail fleet &middot; <span id="status">connecting…</span><span id="filters"></span></div>
        <div id="map"></div>
        <div id="side">
        <h2>Live</h2><table id="numbers"><tbody>
        <tr><td>Drivers online</td><td id="n-online">–</td></tr>
        <tr><td>Degraded</td><td id="n-degraded">–</td></tr>
        <tr><td>Searching</td><td id="n-searching">–</td></tr>
        <tr><td>To pickup</td><td id="n-driverAssigned">–</td></tr>
        <tr><td>Arrived</td><td id="n-driverArrived">–</td></tr>
        <tr><td>On trip</td><td id="n-onTrip">–</td></tr>
        <tr><td>Position age p50</td><td id="n-p50">–</td></tr>
        <tr><td>Position age p99</td><td id="n-p99">–</td></tr>
        <tr><td>Budget</td><td id="n-budget">–</td></tr>
        <tr><td>Reconnects</td><td id="n-reconnects">–</td></tr>
        </tbody></table>
        <h2>Since this node started</h2><table id="operability"><tbody>
        <tr><td>Crash-free sessions</td><td id="n-crash-free">–</td></tr>
        <tr><td>Battery per active hour</td><td id="n-battery">–</td></tr>
        <tr><td>Online time degraded</td><td id="n-degraded-share">–</td></tr>
        <tr><td>Resync size (frames, versions)</td><td id="n-resync">–</td></tr>
        <tr><td>Refused proposals</td><td id="n-refused">–</td></tr>
        <tr><td>Flags</td><td id="n-flags">–</td></tr>
        </tbody></table>
        <div id="demo" style="display:none"><h2>Demo</h2><div id="faults-server">
        <button data-fault="restartServer">Restart the server</button><div id="demo-answer"></div></div></div>
        <h2>Selected</h2><div id="hint">Click a car or a trip's pin.</div>
        <div id="card"><dl>
        <dt>Driver</dt><dd data-field="driver">–</dd>
        <dt>Car</dt><dd data-field="car">–</dd>
        <dt>Plate</dt><dd data-field="plate">–</dd>
        <dt>Trip</dt><dd data-field="trip">–</dd>
        <dt>State</dt><dd data-field="state">–</dd>
        <dt>Version</dt><dd data-field="version">–</dd>
        <dt>Pickup</dt><dd data-field="pickup">–</dd>
        <dt>Dropoff</dt><dd data-field="dropoff">–</dd>
        <dt>ETA</dt><dd data-field="eta">–</dd>
        <dt>Last position</dt><dd data-field="age">–</dd>
        </dl><a href="#" id="follow">Follow</a>
        <div id="rider" style="display:none"><h2>Rider's eye (simulated)</h2><dl>
        <dt>Pin</dt><dd data-rider="pin">–</dd>
        <dt>Banner</dt><dd data-rider="banner">–</dd>
        <dt>ETA shown</dt><dd data-rider="eta">–</dd>
        <dt>Drawn car from the true one</dt><dd data-rider="gap">–</dd>
        <dt>Trip on the screen</dt><dd data-rider="trip">–</dd>
        </dl><div id="faults"><button data-fault="deadZone">Driver: dead zone 20 s</button>
        <button data-fault="stallRider">Rider: stall socket 12 s</button>
        <button data-fault="killRider">Rider: kill and relaunch app</button>
        <div id="fault-answer"></div></div></div></div>
        </div>
        <div id="missing"></div>
        <script src="/assets/leaflet/leaflet.js"></script>
        <script id="fleet-script">
        "use strict";
        const token = new URLSearchParams(location.search).get("access_token") || "";
        const colours = {idle: "#9aa4b2", searching: "#f5c542", driverAssigned: "#4aa3ff", driverArrived: "#b26bff",
          onTrip: "#3ddc84"};
        const names = {idle: "waiting", searching: "searching", driverAssigned: "to pickup", driverArrived: "arrived",
          onTrip: "on trip"};
        const shown = {idle: true, searching: true, driverAssigned: true, driverArrived: true, onTrip: true};
        const cars = new Map();
        const trips = new Map();
        const hail = {cars, trips, map: null, stats: null, selected: null, following: false, frames: 0,
          clockOffset: 0, roads: 0, demo: null, rider: null, pins: [], glide: null, truth: null, snapshots: 0};
        window.hail = hail;
        let glideMillis = 1000;
        function serverNow() { return Date.now() + hail.clockOffset; }
        function stateOf(car) { return car.tripState || "idle"; }
        function decodePath(text) {
          const points = []; let index = 0, lat = 0, lng = 0;
          while (index < text.length) {
            for (const axis of [0, 1]) {
              let shift = 0, result = 0, byte;
              do { byte = text.charCodeAt(index++) - 63; result |= (byte & 0x1f) << shift; shift += 5; } while (byte >= 0x20);
              const delta = (result & 1) ? ~(result >> 1) : (result >> 1);
              if (axis === 0) lat += delta; else lng += delta;
            }
            points.push([lat / 1e5, lng / 1e5]);
          }
          return points;
        }
        function arrow(colour) {
          return '<svg viewBox="-9 -9 18 18"><path d="M0,-8 L6,7 L0,3 L-6,7 Z" fill="' + colour +
            '" stroke="#000" stroke-width="1"/></svg>';
        }
        function missing() {
          const box = document.getElementById("missing");
          box.style.display = "block";
          box.textContent = "The map library is missing on this server. Install Leaflet with " +
            "`sudo apt-get install libjs-leaflet` (scripts/setup.sh does), then reload.";
          document.getElementById("status").textContent = "Leaflet missing";
        }
        function metres(a, b) {
          const k = Math.cos(a[0] * Math.PI / 180);
          return Math.hypot((b[0] - a[0]) * 111195, (b[1] - a[1]) * 111195 * k);
        }
        function along(points, fraction) {
          if (points.length === 1) return points[0];
          const lengths = []; let total = 0;
          for (let i = 1; i < points.length; i++) { const d = metres(points[i - 1], points[i]); lengths.push(d); total += d; }
          if (total === 0) return points[points.length - 1];
          let left = fraction * total;
          for (let i = 1; i < points.length; i++) {
            if (left <= lengths[i - 1]) {
              const t = lengths[i - 1] === 0 ? 1 : left / lengths[i - 1];
              return [points[i - 1][0] + (points[i][0] - points[i - 1][0]) * t,
                points[i - 1][1] + (points[i][1] - points[i - 1][1]) * t];
            }
            left -= lengths[i - 1];
          }
          return points[points.length - 1];
        }
        function bearing(a, b) {
          const k = Math.cos(a[0] * Math.PI / 180);
          return (Math.atan2((b[1] - a[1]) * k, b[0] - a[0]) * 180 / Math.PI + 360) % 360;
        }
        function turn(from, to) { return ((to - from + 540) % 360) - 180; }
        function place(car, now) {
          const t = Math.min(1, Math.max(0, (now - car.startedAt) / glideMillis));
          const spot = along(car.route, t);
          const heading = car.fromHeading + turn(car.fromHeading, car.toHeading) * t;
          car.spot = spot; car.heading = heading;
          car.marker.setLatLng(spot);
          const svg = car.marker.getElement() && car.marker.getElement().firstChild;
          if (svg) svg.style.transform = "rotate(" + heading + "deg)";
        }
        function icon(car) {
          return L.divIcon({className: "car" + (hail.selected && hail.selected.driverID === car.driverID ? " selected" : ""),
            html: arrow(colours[stateOf(car)] || colours.idle), iconSize: [18, 18]});
        }
        function upsertCar(record) {
          const to = [record.location.coordinate.lat, record.location.coordinate.lng];
          let car = cars.get(record.driverID);
          if (!car) {
            car = {driverID: record.driverID, spot: to, heading: record.location.heading, route: [to],
              fromHeading: record.location.heading, toHeading: record.location.heading, startedAt: 0};
            car.marker = L.marker(to, {icon: L.divIcon({className: "car", html: "", iconSize: [18, 18]})});
            car.marker.on("click", () => select({driverID: record.driverID}));
            cars.set(record.driverID, car);
          }
          Object.assign(car, {driver: record.driver, location: record.location, online: record.online,
            degraded: record.degraded, tripID: record.tripID || null, tripState: record.tripState || null});
          car.route = [car.spot, to]; car.fromHeading = car.heading; car.toHeading = record.location.heading;
          car.startedAt = performance.now();
          car.marker.setIcon(icon(car));
          car.marker.getElement && car.marker.getElement() && car.marker.getElement().setAttribute("data-driver", car.driverID);
          return car;
        }
        function moveCar(move) {
          const car = cars.get(move.driverID);
          if (!car || move.location.seq <= car.location.seq) return;
          const to = [move.location.coordinate.lat, move.location.coordinate.lng];
          let route = move.path ? decodePath(move.path) : [];
          // The path starts where the car was last sent; the car may still be gliding towards there.
          route = [car.spot].concat(route.length ? route.slice(1) : []).concat([to]);
          car.route = route; car.fromHeading = car.heading;
          car.toHeading = route.length > 1 ? bearing(route[route.length - 2], route[route.length - 1]) : move.location.heading;
          if (Math.abs(move.location.heading) > 0) car.toHeading = move.location.heading;
          car.startedAt = performance.now();
          car.location = move.location;
          if (car.tripID && trips.has(car.tripID) && move.etaSeconds !== undefined) trips.get(car.tripID).etaSeconds = move.etaSeconds;
        }
        function removeCar(driverID) {
          const car = cars.get(driverID);
          if (!car) return;
          car.marker.remove(); cars.delete(driverID);
        }
        function upsertTrip(record) {
          const old = trips.get(record.id);
          if (old && old.version >= record.version) return;
          if (old) { old.pin.remove(); }
          if (!["searching", "driverAssigned", "driverArrived", "onTrip"].includes(record.state)) {
            trips.delete(record.id); return;
          }
          const target = record.state === "onTrip" ? record.dropoff : record.pickup;
          const trip = Object.assign({}, record);
          trip.pin = L.circleMarker([target.lat, target.lng], {radius: 7, color: colours[record.state], weight: 2,
            fillOpacity: 0.15, className: "trip-pin"});
          trip.pin.on("click", () => select({tripID: record.id}));
          trips.set(record.id, trip);
        }
        function visible(layer, yes) {
          if (yes && !hail.map.hasLayer(layer)) layer.addTo(hail.map);
          if (!yes && hail.map.hasLayer(layer)) layer.remove();
        }
        function applyFilters() {
          for (const car of cars.values()) {
            visible(car.marker, shown[stateOf(car)]);
            const element = car.marker.getElement();
            if (element) element.setAttribute("data-driver", car.driverID);
          }
          for (const trip of trips.values()) visible(trip.pin, shown[trip.state]);
        }
        function number(id, text, cls) {
          const cell = document.getElementById(id); cell.textContent = text; cell.className = cls || "";
        }
        function showStats(stats) {
          hail.stats = stats;
          number("n-online", stats.driversOnline); number("n-degraded", stats.driversDegraded);
          for (const state of ["searching", "driverAssigned", "driverArrived", "onTrip"]) {
            number("n-" + state, stats.tripsByState[state] || 0);
          }
          const age = v => v === undefined || v === null ? "–" : v.toFixed(1) + " s";
          number("n-p50", age(stats.positionAgeP50), stats.positionAgeP50 > stats.budgetSeconds ? "over" : "ok");
          number("n-p99", age(stats.positionAgeP99), stats.positionAgeP99 > stats.budgetSeconds ? "over" : "ok");
          number("n-budget", stats.budgetSeconds + " s"); number("n-reconnects", stats.reconnects);
          const o = stats.operability;
          if (o) {
            const share = v => v === undefined || v === null ? "–" : (v * 100).toFixed(1) + "%";
            const fixed = (v, unit) => v === undefined || v === null ? "–" : v.toFixed(1) + unit;
            number("n-crash-free", o.sessions ? share(o.crashFreeSessions) + " of " + o.sessions : "–",
              o.crashFreeSessions !== undefined && o.crashFreeSessions < 0.99 ? "over" : "ok");
            number("n-battery", fixed(o.batteryPercentPerActiveHour, " %/h"));
            number("n-degraded-share", share(o.degradedShareOfOnlineTime));
            number("n-resync", o.resyncs ? fixed(o.framesPerResync, "") + ", " + fixed(o.tripVersionsPerResync, "") +
              " (" + o.resyncs + ")" : "–");
            number("n-refused", o.refusedProposals);
            number("n-flags", o.flagCohorts + " cohorts" + (o.flagsLastReadApplied ? "" : ", last reload refused"),
              o.flagsLastReadApplied ? "ok" : "over");
          }
          document.getElementById("status").textContent = cars.size + " cars · " + trips.size + " active trips";
        }
        function select(what) {
          hail.selected = what; hail.following = false; hail.pins = []; hail.rider = null;
          document.getElementById("follow").textContent = "Follow";
          for (const car of cars.values()) car.marker.setIcon(icon(car));
          applyFilters();
          showCard();
        }
        function selectedTripID() {
          const what = hail.selected;
          if (!what) return null;
          if (what.tripID) return what.tripID;
          const car = cars.get(what.driverID);
          return car && car.tripID ? car.tripID : null;
        }
        function riderField(name, text) { document.querySelector('#rider [data-rider="' + name + '"]').textContent = text; }
        function dot(layer, spot, style) {
          if (!spot) { if (layer) layer.remove(); return null; }
          if (!layer) layer = L.circleMarker([spot.lat, spot.lng], style).addTo(hail.map);
          layer.setLatLng([spot.lat, spot.lng]);
          return layer;
        }
        function showRider(view) {
          hail.rider = view;
          const box = document.getElementById("rider");
          box.style.display = hail.demo ? "block" : "none";
          if (!view) {
            riderField("pin", "no simulated rider watches this trip");
            for (const name of ["banner", "eta", "gap", "trip"]) riderField(name, "–");
            hail.glide = dot(hail.glide, null); hail.truth = dot(hail.truth, null);
            return;
          }
          if (hail.pins[hail.pins.length - 1] !== view.pin) hail.pins.push(view.pin);
          riderField("pin", view.pin || "no position yet");
          riderField("banner", view.showsDelayedBanner ? "Driver's location may be delayed" : "none");
          riderField("eta", view.etaMinutes === undefined || view.etaMinutes === null ? "none" : view.etaMinutes + " min");
          riderField("gap", view.glide && view.truth ?
            Math.round(metres([view.glide.lat, view.glide.lng], [view.truth.lat, view.truth.lng])) + " m" : "–");
          riderField("trip", names[view.state] + ", version " + view.version);
          hail.glide = dot(hail.glide, view.glide, {radius: 10, color: "#ffffff", weight: 2, fill: false});
          hail.truth = dot(hail.truth, view.truth, {radius: 3, color: "#f5c542", weight: 1, fillOpacity: 1});
        }
        async function pollRider() {
          const tripID = selectedTripID();
          if (tripID && hail.demo !== false) {
            try {
              const answer = await fetch("/v1/demo/trips/" + encodeURIComponent(tripID) + "/rider",
                {headers: {Authorization: "Bearer " + token}});
              if (answer.status === 404) { hail.demo = false; showRider(null); }
              else if (answer.status === 204) { hail.demo = true; if (selectedTripID() === tripID) showRider(null); }
              else if (answer.ok) { hail.demo = true; const view = await answer.json(); if (selectedTripID() === tripID) showRider(view); }
            } catch (error) { /* the next poll tries again */ }
          } else if (!tripID) {
            document.getElementById("rider").style.display = "none";
            hail.glide = dot(hail.glide, null); hail.truth = dot(hail.truth, null);
          }
          setTimeout(pollRider, 500);
        }
        async function probeDemo() {
          // A demo server answers 204 for a trip no simulated rider watches; any other server 404.
          try {
            const answer = await fetch("/v1/demo/trips/none/rider", {headers: {Authorization: "Bearer " + token}});
            hail.demo = answer.status === 204 || answer.ok;
            document.getElementById("demo").style.display = hail.demo ? "block" : "none";
          } catch (error) { hail.demo = null; }
        }
        async function pressFault(kind) {
          const tripID = kind === "restartServer" ? null : selectedTripID();
          const out = document.getElementById(kind === "restartServer" ? "demo-answer" : "fault-answer");
          if (!tripID && kind !== "restartServer") { out.textContent = "select a car on a trip first"; return; }
          try {
            const answer = await fetch("/v1/demo/faults", {method: "POST", headers: {Authorization: "Bearer " + token,
              "Content-Type": "application/json"}, body: JSON.stringify(tripID ? {kind, tripID} : {kind})});
            const body = await answer.json();
            out.textContent = answer.ok ? body.done : body.error.message;
          } catch (error) { out.textContent = "no answer: " + error.message; }
        }
        function field(name, text) { document.querySelector('#card [data-field="' + name + '"]').textContent = text; }
        function where(c) { return c ? c.lat.toFixed(5) + ", " + c.lng.toFixed(5) : "–"; }
        function showCard() {
          const what = hail.selected;
          if (!what) return;
          let trip = what.tripID ? trips.get(what.tripID) : null;
          let car = what.driverID ? cars.get(what.driverID) : null;
          if (!car && trip && trip.driverID) car = cars.get(trip.driverID);
          if (!trip && car && car.tripID) trip = trips.get(car.tripID);
          document.getElementById("card").style.display = "block";
          document.getElementById("hint").style.display = "none";
          const d = car && car.driver;
          field("driver", d ? d.name + " (" + car.driverID + ")" : (car ? car.driverID : "none yet"));
          field("car", d ? d.carModel : "–"); field("plate", d ? d.plate : "–");
          field("trip", trip ? trip.id : "no trip");
          field("state", trip ? names[trip.state] + " (" + trip.state + ")" : (car ? (car.online ? "waiting" : "offline") : "–"));
          field("version", trip ? String(trip.version) : "–");
          field("pickup", trip ? where(trip.pickup) : "–"); field("dropoff", trip ? where(trip.dropoff) : "–");
          field("eta", trip && trip.etaSeconds !== undefined && trip.etaSeconds !== null ?
            Math.max(1, Math.round(trip.etaSeconds / 60)) + " min" : "–");
          field("age", car ? ((serverNow() - Date.parse(car.location.receivedAt)) / 1000).toFixed(1) + " s ago" : "–");
        }
        function frame(now) {
          for (const car of cars.values()) place(car, now);
          if (hail.following && hail.selected) {
            const car = cars.get(hail.selected.driverID) ||
              (hail.selected.tripID && trips.get(hail.selected.tripID) && cars.get(trips.get(hail.selected.tripID).driverID));
            if (car) hail.map.panTo(car.spot, {animate: false});
          }
          requestAnimationFrame(frame);
        }
        function receive(message) {
          hail.frames++;
          if (message.type === "hello") {
            hail.clockOffset = Date.parse(message.serverTime) - Date.now();
          } else if (message.type === "fleetSnapshot") {
            hail.snapshots++;
            for (const car of cars.values()) car.marker.remove();
            for (const trip of trips.values()) trip.pin.remove();
            cars.clear(); trips.clear();
            for (const car of message.cars) upsertCar(car);
            for (const trip of message.trips) upsertTrip(trip);
            applyFilters(); showStats(message.stats);
          } else if (message.type === "fleetChanged") {
            for (const id of message.carsGone) removeCar(id);
            for (const car of message.cars) upsertCar(car);
            for (const trip of message.trips) upsertTrip(trip);
            applyFilters();
          } else if (message.type === "carsMoved") {
            for (const move of message.moves) moveCar(move);
          } else if (message.type === "fleetStats") {
            showStats(message.stats);
          }
          showCard();
        }
        let attempt = 0;
        function connect() {
          const scheme = location.protocol === "https:" ? "wss://" : "ws://";
          const socket = new WebSocket(scheme + location.host + "/v1/fleet/live?access_token=" + encodeURIComponent(token));
          socket.onopen = () => { attempt = 0; };
          socket.onmessage = event => receive(JSON.parse(event.data));
          socket.onclose = event => {
            document.getElementById("status").textContent = "stream closed (" + event.code + "), reconnecting…";
            if (event.code === 4001 || event.code === 4003) {
              document.getElementById("status").textContent = "this page needs an operator token (?access_token=)";
              return;
            }
            // Exponential backoff with jitter, capped at 30 s; the snapshot on reconnect replaces everything.
            const delay = Math.min(30000, 500 * Math.pow(2, attempt++)) * (0.5 + Math.random() / 2);
            setTimeout(connect, delay);
          };
        }
        async function loadRoads() {
          try {
            const answer = await fetch("/v1/fleet/roads?access_token=" + encodeURIComponent(token));
            if (!answer.ok) return;
            const flat = (await answer.json()).segments || [];
            const lines = [];
            for (let i = 0; i + 3 < flat.length; i += 4) lines.push([[flat[i], flat[i + 1]], [flat[i + 2], flat[i + 3]]]);
            hail.roads = lines.length;
            if (lines.length === 0) return;
            const layer = L.polyline(lines, {color: "#3a4658", weight: 2, interactive: false}).addTo(hail.map);
            hail.map.fitBounds(layer.getBounds(), {padding: [10, 10]});
          } catch (error) {
            hail.roads = 0;
          }
        }
        function start() {
          if (typeof L === "undefined") { missing(); return; }
          hail.map = L.map("map", {zoomSnap: 0.25, attributionControl: false}).setView([43.7384, 7.4246], 15);
          const filters = document.getElementById("filters");
          for (const state of Object.keys(shown)) {
            const label = document.createElement("label"); label.className = "filter";
            label.innerHTML = '<input type="checkbox" checked data-state="' + state + '"><span style="background:' +
              colours[state] + '"></span>' + names[state];
            label.firstChild.addEventListener("change", event => { shown[state] = event.target.checked; applyFilters(); });
            filters.appendChild(label);
          }
          document.getElementById("follow").addEventListener("click", event => {
            event.preventDefault(); hail.following = !hail.following;
            event.target.textContent = hail.following ? "Following (click to stop)" : "Follow";
          });
          for (const button of document.querySelectorAll("#faults button, #faults-server button")) {
            button.addEventListener("click", () => pressFault(button.getAttribute("data-fault")));
          }
          loadRoads().then(connect);
          probeDemo();
          pollRider();
          requestAnimationFrame(frame);
        }
        start();
        </script></body></html>
        """
}
