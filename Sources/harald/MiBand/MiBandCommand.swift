import ArgumentParser
import Foundation
import Harald
import HaraldMiBand
import HaraldProfiles

/// `harald miband …`: the Mi Band 2 kit from the command line.
struct MiBandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "miband", abstract: "Talk to a Mi Band 2 (or a band with its protocol): steps, battery, heart rate.",
        subcommands: [Steps.self, Battery.self, HeartRate.self, Activity.self])
}

/// Options of every `miband` command: the device, auth and the radio.
struct MiBandOptions: ParsableArguments {
    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions

    @Option(help: "Auth key, 32 hex digits (default: the well-known \"0123456789@ABCDE\").")
    var key: String?

    @Flag(help: "Do not authenticate, even when the band has the auth characteristic.")
    var noAuth = false

    @Flag(help: "Install the key when the band asks for one (the first pairing with a new or reset band).")
    var setKey = false

    @Option(help: "Seconds to wait for each reply of the band.")
    var timeout: Double = 10

    func validate() throws {
        if let key, MiBandKey(hex: key) == nil { throw ValidationError("--key must be 32 hex digits (16 bytes)") }
    }

    var authKey: MiBandKey { key.flatMap { MiBandKey(hex: $0) } ?? .default }
    var replyTimeout: Duration { .milliseconds(Int64(max(0.1, timeout) * 1000)) }

    /// Connects, declares the kit's services and authenticates when the band has the auth
    /// characteristic (unless `--no-auth`), then runs `body` and disconnects.
    func withBand(_ body: @escaping @Sendable (MiBand2) async throws -> Void) async throws {
        let device = self.device
        let noAuth = self.noAuth
        let keySetup: MiBand2.KeySetup = setKey ? .whenAsked : .never
        let key = authKey
        let timeout = replyTimeout
        try await RadioSession.run(radio) { central in
            let connection = try await device.connect(central)
            await connection.declare(MiBand2.services)
            var band = MiBand2(connection: connection)
            band.replyTimeout = timeout
            do {
                if !noAuth, try await band.hasAuthCharacteristic() {
                    try await band.authenticate(key: key, keySetup: keySetup)
                }
                try await body(band)
            } catch {
                await connection.disconnect()
                throw error
            }
            await connection.disconnect()
        }
    }
}

extension MiBandCommand {
    /// `harald miband steps ADDRESS`.
    struct Steps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Today's steps, distance (m) and energy (kcal).")
        @OptionGroup var options: MiBandOptions

        func run() async throws {
            let json = options.radio.json
            try await options.withBand { band in
                let steps = try await band.steps()
                Output.line(
                    json
                        ? JSONValue.fields(["steps": .int(steps.steps), "meters": .int(steps.meters), "calories": .int(steps.calories)]).jsonText
                        : "\(steps.steps) steps, \(steps.meters) m, \(steps.calories) kcal")
            }
        }
    }

    /// `harald miband battery ADDRESS`.
    struct Battery: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Battery level, charging state and last charge.")
        @OptionGroup var options: MiBandOptions

        func run() async throws {
            let json = options.radio.json
            try await options.withBand { band in
                let info = try await band.battery()
                if json {
                    Output.json(
                        .fields([
                            "level": .int(info.level), "charging": .bool(info.isCharging), "chargeCount": .int(info.chargeCount),
                            "lastCharge": info.lastCharge.map { .string($0.description) }, "lastChargeLevel": .int(info.lastChargeLevel),
                            "lastOff": info.lastOff.map { .string($0.description) },
                        ]))
                } else {
                    let last = info.lastCharge.map { ", last charged \($0) to \(info.lastChargeLevel) %" } ?? ""
                    Output.line("battery \(info.level) %\(info.isCharging ? ", charging" : "")\(last), \(info.chargeCount) charges")
                }
            }
        }
    }

    /// `harald miband heart-rate ADDRESS`.
    struct HeartRate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "heart-rate", abstract: "One heart-rate measurement (bpm).")
        @OptionGroup var options: MiBandOptions

        @Option(help: "Seconds to wait for the measurement.")
        var measurementTimeout: Double = 40

        func run() async throws {
            let json = options.radio.json
            let limit = Duration.milliseconds(Int64(max(0.1, measurementTimeout) * 1000))
            try await options.withBand { band in
                var band = band
                band.measurementTimeout = limit
                let bpm = try await band.heartRate()
                Output.line(json ? JSONValue.fields(["heartRate": .int(bpm)]).jsonText : "\(bpm) bpm")
            }
        }
    }
}
