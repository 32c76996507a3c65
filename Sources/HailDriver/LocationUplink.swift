import Foundation
import HailCore
import HailProtocol
import HailTime
import Observation

/// The driver's positions on their way up: the fixes and fix status read from the location source, the policy
/// handed to it, the pipeline's actions carried out (batches sent one at a time in seq order over the stream or
/// HTTP, its timer), the link they travel on, and a silent stream noticed by its missing acks.
@MainActor
@Observable
final class LocationUplink {
    /// Filter, batcher and what has been sent.
    private(set) var pipeline: DriverLocationPipeline
    /// Which link carries positions.
    private(set) var link: DriverLink = .down
    /// The policy the location source last confirmed applying.
    private(set) var sourcePolicy: LocationPolicy?

    @ObservationIgnored private let channel: any DriverChannel
    @ObservationIgnored private let api: any DriverAPI
    @ObservationIgnored private let location: any LocationSource
    @ObservationIgnored private let timeline: Timeline
    @ObservationIgnored private let ackTimeout: TimeInterval
    @ObservationIgnored private let tasks: DriverTasks
    @ObservationIgnored private let saves: DriverSaves
    @ObservationIgnored private var sendQueue: [(batch: LocationBatch, via: LocationBatcher.Transport)] = []
    @ObservationIgnored private var draining = false
    /// Bumped whenever `link` changes: a send that fails after the link changed under it (a request that
    /// waited out its timeout while the stream came back) says nothing about the link now.
    @ObservationIgnored private var linkGeneration = 0
    @ObservationIgnored private var requestedPolicy: LocationPolicy?
    @ObservationIgnored private var bufferSavedAt: Date?
    /// When the driver tapped "started" in this app's life.
    @ObservationIgnored private var startTappedAt: Date?
    /// The newest fix the phone had taken when "started" was tapped: where the car stood.
    @ObservationIgnored private var standingAtStart: LocationPoint?
    /// Told after every step this part takes that the screen or a waiter may care about.
    @ObservationIgnored var stepTaken: @MainActor () -> Void = {}
    /// Told when a link came up (the outbox and an owed status go then).
    @ObservationIgnored var connectivityBack: @MainActor () -> Void = {}
    /// Told when the server took a batch over HTTP: it answers again (the stream may reconnect at once).
    @ObservationIgnored var serverAnswered: @MainActor () -> Void = {}
    /// Told of the offer an answer over HTTP carried: with the stream down, that is how an offer reaches the app.
    @ObservationIgnored var offerHeard: @MainActor (TripOffer) -> Void = { _ in }
    /// Told a failure nobody else reports.
    @ObservationIgnored var problem: @MainActor (String) -> Void = { _ in }

    /// An uplink with nothing sent yet.
    init(
        channel: any DriverChannel, api: any DriverAPI, location: any LocationSource, timeline: Timeline,
        ackTimeout: TimeInterval, bufferCapacity: Int, tasks: DriverTasks, saves: DriverSaves
    ) {
        self.channel = channel
        self.api = api
        self.location = location
        self.timeline = timeline
        self.ackTimeout = ackTimeout
        self.tasks = tasks
        self.saves = saves
        self.pipeline = DriverLocationPipeline(policy: .off, bufferCapacity: bufferCapacity)
    }

    /// Picks up the batcher's saved state after a kill.
    func restore(_ snapshot: LocationBatcher.Snapshot) {
        pipeline = DriverLocationPipeline(
            policy: .off, snapshot: snapshot, bufferCapacity: pipeline.batcher.configuration.bufferCapacity)
    }

    /// Starts reading fixes and fix status from the location source, once.
    func listen() {
        if !tasks.isRunning(.fixes) {
            let fixes = location.fixes()
            tasks.start(.fixes) { [weak self] _ in
                for await point in fixes {
                    guard let self else { return }
                    self.receive(point)
                }
            }
        }
        if !tasks.isRunning(.fixStatus) {
            let statuses = location.fixStatus()
            tasks.start(.fixStatus) { [weak self] _ in
                for await status in statuses {
                    guard let self else { return }
                    self.perform(self.pipeline.fixStatusChanged(status, now: self.timeline.now()))
                }
            }
        }
    }

    /// The policy and whether a rider watches the car changed: the pipeline paces itself by them, and the
    /// location source gets the policy after every one decided before it.
    func apply(_ policy: LocationPolicy, riderWatching watching: Bool) {
        if pipeline.riderWatching != watching {
            perform(pipeline.riderWatchingChanged(watching, now: timeline.now()))
        }
        guard requestedPolicy != policy else { return }
        requestedPolicy = policy
        perform(pipeline.setPolicy(policy, now: timeline.now()))
        let source = location
        tasks.start(.policy, keepingPrevious: true) { [weak self] previous in
            await previous?.value
            await source.apply(policy)
            self?.sourcePolicy = policy
            self?.stepTaken()
        }
    }

    // MARK: Fixes

    private func receive(_ point: LocationPoint) {
        let now = timeline.now()
        perform(pipeline.fix(point, now: now))
        // Online, every send saves the snapshot; in a tunnel nothing is sent, so the buffer is saved on its
        // own, at most every `bufferSaveInterval`, and a kill there loses at most that much of the path.
        if !pipeline.isConnected, now.timeIntervalSince(bufferSavedAt ?? .distantPast) >= Self.bufferSaveInterval {
            bufferSavedAt = now
            tasks.spawn { [saves] in await saves.save() }
        }
    }

    /// Device seconds between saves of the offline buffer.
    static let bufferSaveInterval: TimeInterval = 5

    /// Sends the source's fix of this instant at once, with whatever waits; false when it has none (or the
    /// filter refused it).
    @discardableResult
    func sendFreshFix() async -> Bool {
        guard let point = await location.currentFix() else { return false }
        let before = pipeline.stats.freshFixes
        perform(pipeline.freshFix(point, now: timeline.now()))
        return pipeline.stats.freshFixes > before
    }

    /// The trip's state changed: what waits goes now (the fare is built from the path driven).
    func tripStateChanged() {
        perform(pipeline.tripStateChanged(now: timeline.now()))
    }

    /// A waiting driver came back (a reconnect, a trip settled): its last fix goes again, for a server that may
    /// have forgotten where the car stands.
    func waitingDriverReconnected() {
        perform(pipeline.waitingDriverReconnected(now: timeline.now()))
    }

    /// The server acknowledged batch `seq` on the stream.
    func acknowledged(_ seq: Int64) {
        pipeline.ack(seq, at: timeline.now())
        stepTaken()
    }

    // MARK: Sending

    private func perform(_ actions: [DriverLocationPipeline.Action]) {
        for action in actions {
            switch action {
            case .send(let batch, let via):
                sendQueue.append((batch, via))
            case .wake(let date):
                let timeline = self.timeline
                tasks.start(.pipelineWake) { [weak self] _ in
                    do { try await timeline.sleep(until: date) } catch { return }
                    guard let self else { return }
                    self.perform(self.pipeline.tick(now: timeline.now()))
                }
            }
        }
        if !sendQueue.isEmpty { drain() }
        stepTaken()
    }

    /// Sends queued batches one at a time, in seq order: the server ignores a batch older than one it has.
    private func drain() {
        guard !draining else { return }
        draining = true
        tasks.spawn { [weak self] in
            guard let self else { return }
            // No suspension between the last emptiness check and clearing the flag, or a batch queued in
            // between would wait for the next one.
            while !Task.isCancelled, let (batch, via) = self.sendQueue.first {
                self.sendQueue.removeFirst()
                await self.send(batch, via: via)
            }
            self.draining = false
        }
    }

    private func send(_ batch: LocationBatch, via: LocationBatcher.Transport) async {
        // A batch re-buffered by a link loss since it was queued goes out again under a new seq.
        guard pipeline.batcher.inFlight.contains(where: { $0.seq == batch.seq }) else { return }
        let generation = linkGeneration
        await saves.save()
        // The link changed while saving: the batch was re-buffered and goes out again on the new one.
        guard generation == linkGeneration else { return }
        switch via {
        case .stream:
            do {
                try await channel.send(batch)
                watchForAck(batch.seq)
            } catch {
                guard generation == linkGeneration else { return }
                streamLost(online: true)
                // The socket may still look open to the reader (a send can fail first): closed, it ends the
                // frames, so the reconnect loop takes over instead of waiting on it.
                await channel.disconnect()
            }
        case .http:
            do {
                let ack = try await api.sendLocations(batch)
                pipeline.ack(ack.seq, at: timeline.now())
                if let offer = ack.offer { offerHeard(offer) }
                serverAnswered()
                connectivityBack()
                stepTaken()
            } catch let failure as CallError where failure.isRejection {
                // A refused batch can never succeed; retiring it keeps the rest flowing.
                pipeline.ack(batch.seq)
                problem("location batch \(batch.seq) refused: \(failure.message)")
            } catch {
                // A request that timed out after the stream came back must not take the stream down: nothing
                // would bring it up again until the socket broke by itself.
                guard generation == linkGeneration else { return }
                linkDown()
                stepTaken()
            }
        }
    }

    /// A socket can die without closing (a NAT forgets it, the radio parks): batches would queue behind it
    /// unacknowledged forever. No ack within `ackTimeout` counts as down; the reconnect loop takes over.
    private func watchForAck(_ seq: Int64) {
        let timeline = self.timeline
        let deadline = timeline.now().addingTimeInterval(ackTimeout)
        tasks.spawn { [weak self] in
            do { try await timeline.sleep(until: deadline) } catch { return }
            guard let self, self.link == .stream,
                self.pipeline.batcher.inFlight.contains(where: { $0.seq == seq })
            else { return }
            self.problem("no ack for batch \(seq) within \(Int(self.ackTimeout)) s: the stream is silent")
            await self.channel.disconnect()
        }
    }

    // MARK: The link

    /// A link came up: what waits goes on it.
    func linkUp(_ transport: LocationBatcher.Transport) {
        if link != .down { pipeline.linkDown() }
        setLink(transport == .stream ? .stream : .http)
        perform(pipeline.linkUp(transport, now: timeline.now()))
        connectivityBack()
        stepTaken()
    }

    /// The stream is gone: HTTP carries positions (while `online`) until it fails too.
    func streamLost(online: Bool) {
        guard link != .http else { return }
        linkDown()
        guard online else { return }
        linkUp(.http)
    }

    /// No link: what was in flight is buffered again.
    func linkDown() {
        pipeline.linkDown()
        setLink(.down)
    }

    private func setLink(_ new: DriverLink) {
        link = new
        linkGeneration += 1
    }

    /// The driver tapped "started": fixes taken before it that the server has not had (an offline buffer flushed
    /// as the trip begins) would reach the trip's history after the start and be charged as part of the ride (71 m
    /// of a 2,306 m stalls trip), so they are dropped but the newest, where the car stood.
    func tripStarted() {
        let now = timeline.now()
        startTappedAt = now
        standingAtStart = pipeline.filter.lastAccepted.flatMap { $0.t < now ? $0 : nil }
        pipeline.forgetFixes(takenBefore: now)
    }

    /// The fixes taken on the trip (since "started" was tapped, when this app saw it) that the server has not
    /// acknowledged, oldest first: in flight, waiting or in the offline buffer, at most a batch's worth (the
    /// newest). With them, where the car stood when "started" was tapped, acknowledged or not: a server that could
    /// not read it as the trip started (its Redis away, or cut from the node that took the start) charges the trip
    /// from it (`ChargedFixes`); one that stored it already has that fix and ignores it.
    func pathNotAcknowledged() -> [LocationPoint] {
        let now = timeline.now()
        let since = startTappedAt ?? .distantPast
        let points = pipeline.batcher.snapshot.points.filter { $0.t <= now }
        var path = points.filter { $0.t >= since }
        let kept = points.filter({ $0.t < since }).max(by: { $0.t < $1.t })
        if let standing = [kept, standingAtStart].compactMap({ $0 }).max(by: { $0.t < $1.t }) { path.append(standing) }
        path.sort { $0.t < $1.t }
        return Array(path.suffix(ProtocolLimits.maxPointsPerBatch))
    }

    /// Forgets what was in flight, as a killed app would.
    func shutdown() {
        sendQueue.removeAll()
        draining = false
    }
}
