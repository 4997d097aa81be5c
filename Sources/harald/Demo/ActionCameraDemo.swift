import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator

// The GoPro-like camera's part of `harald demo`, on the GoPro kit (HaraldGoPro).
extension Demo {
    /// The section on the simulator's camera, with the link's cost at the end.
    static func camera(_ central: Central, _ world: Simulator, _ camera: VirtualPeripheral, _ say: DemoPrinter, _ summary: DemoSummary) async throws {
        say("connecting to \(camera.name ?? "the camera")")
        try await Self.camera(central, at: camera.identifier, world: world, say, summary)
        if let simulated = world.connection(to: camera.address) { await Self.report(simulated, say) }
    }

    /// The section on any Open GoPro camera the central can reach (the simulator's, or a camera
    /// over `tcp:`/`hci:`): nothing in it depends on the simulator, which only adds the link's
    /// figures (connection events, air time) to each step's row in `summary`.
    static func camera(_ central: Central, at peripheral: PeripheralIdentifier, world: Simulator?, _ say: DemoPrinter, _ summary: DemoSummary) async throws {
        let connection = try await central.connect(to: peripheral, timeout: .seconds(10))
        let gopro = GoProCamera(connection: connection)
        do {
            try await Self.cameraSteps(gopro, central, CostedSteps(summary: summary, world: world), say)
        } catch {
            await gopro.stop()
            await connection.disconnect()
            throw error
        }
        await gopro.stop()
        await connection.disconnect()
    }

    private static func cameraSteps(_ gopro: GoProCamera, _ central: Central, _ steps: CostedSteps, _ say: DemoPrinter) async throws {
        let connection = gopro.connection

        // Readiness: subscribe to every notifiable characteristic, poll Get Hardware Info.
        let info = try await gopro.waitUntilReady(timeout: .seconds(10), pollInterval: .milliseconds(500))
        await steps.sinceConnecting("camera: connect, readiness", connection)
        let polls = await gopro.statistics.messages
        say(
            "  ready after \(polls) Get Hardware Info poll\(polls == 1 ? "" : "s"): \(info.modelName), firmware \(info.firmwareVersion), serial \(info.serialNumber)"
        )
        say("  Open GoPro API \(try await steps.measure("camera: Open GoPro version", connection) { try await gopro.openGoProVersion() })")

        // A multi-packet answer: every status, reassembled, then walked as TLV.
        let statuses = try await steps.measure("camera: all statuses (multi-packet)", connection) { try await gopro.statuses() }
        let length = 2 + statuses.reduce(0) { $0 + 2 + $1.value.count }
        say("  all statuses: \(statuses.count) values, a \(length)-byte answer in \(GoProFragmenter.packetCount(messageLength: length)) packets")
        say(
            "    battery \(statuses.integer(.internalBatteryPercentage) ?? 0) %, video left \(statuses.integer(.remainingVideoTime) ?? 0) s, access point \"\(statuses.string(.accessPointSSID) ?? "?")\""
        )

        // Registration and pushes while recording.
        try await steps.measure("camera: register, shutter, pushes", connection) {
            let watch = try await gopro.watchStatuses([.encoding, .videoEncodingDuration])
            say("  registered for encoding (10) and video progress (13): now \(Self.summary(watch.current))")
            try await gopro.startRecording()
            say("  shutter on: recording")
            var updates = watch.statusUpdates.makeAsyncIterator()
            for _ in 0..<4 {
                guard let values = await updates.next() else { break }
                say("    push 0x93: \(Self.summary(values))")
            }
            try await gopro.stopRecording()
            if let values = await updates.next() { say("  shutter off; push 0x93: \(Self.summary(values))") }
            try await gopro.unregisterFromStatusUpdates([.encoding, .videoEncodingDuration])
        }

        // Settings through the configuration flow: each written, read back, rolled back on failure.
        try await steps.measure("camera: settings with verification", connection) {
            let applied = try await gopro.configure([(.videoResolution, 24), (.framesPerSecond, 5)]) { progress in
                if case let .verified(step) = progress { say("  setting \(step): read back") }
            }
            say("  configuration applied: \(applied.count) settings")
            do {
                try await gopro.configure([(.videoLens, 4), (.framesPerSecond, 0xEE)])
            } catch let error as ConfigurationFlow.Failure {
                say("  a refused value: \(error.underlying.map { "\($0)" } ?? "not read back"); rolled back \(error.rolledBack)")
            }
            let settings = try await gopro.settings([.videoResolution, .framesPerSecond, .videoLens])
            say(
                "  settings now: resolution \(settings.integer(.videoResolution) ?? 0), fps \(settings.integer(.framesPerSecond) ?? 0), lens \(settings.integer(.videoLens) ?? 0)"
            )
        }

        // The WiFi SSID needs a paired link: the first read is refused and starts pairing.
        let ssid = Characteristic<[UInt8], Harald.Read>(VirtualPeripheral.OpenGoPro.wifiSSID, service: VirtualPeripheral.OpenGoPro.wifiService)
        do {
            _ = try await connection.characteristic(ssid.uuid, service: ssid.service)
        } catch {
            guard case .notFound = error else { throw error }
            say("  no WiFi access point service (GP-0001): skipping the paired read")
            return
        }
        try await steps.measure("camera: paired read (WiFi SSID)", connection) {
            do { _ = try await connection.read(ssid) } catch { say("  read WiFi SSID: \(error); pairing starts") }
            try await central.clock.sleep(for: .seconds(1))
            say("  read WiFi SSID after pairing: \"\(String(decoding: try await connection.read(ssid), as: UTF8.self))\"")
        }
    }

    /// `encoding true, video 3 s`.
    private static func summary(_ values: GoProValues) -> String {
        var parts: [String] = []
        if let encoding = values.bool(.encoding) { parts.append("encoding \(encoding)") }
        if let seconds = values.integer(.videoEncodingDuration) { parts.append("video \(seconds) s") }
        return parts.joined(separator: ", ")
    }
}
