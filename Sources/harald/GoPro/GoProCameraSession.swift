import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldGoPro
import HaraldProfiles

/// What the camera subcommands (`status`, `watch`, `shutter`, `setting`) share: connecting to
/// the camera through the radio options, the readiness flow, and how values are printed.
enum GoProCameraSession {
    /// Connects to the device, runs the readiness flow, runs `body` with the ready camera and
    /// disconnects. Errors end the command with one `error:` line (RadioSession's contract).
    static func run(
        _ radio: RadioOptions, _ device: DeviceOptions, _ body: @escaping @Sendable (GoProCamera) async throws -> Void
    ) async throws {
        try await RadioSession.run(radio) { central in
            let connection = try await device.connect(central)
            let camera = GoProCamera(connection: connection)
            do {
                _ = try await camera.waitUntilReady(timeout: device.connectDuration)
                try await body(camera)
            } catch {
                await connection.disconnect()
                throw error
            }
            await connection.disconnect()
        }
    }

    /// Statuses whose values are text (SSIDs); the others are shown as big-endian numbers.
    static let textStatuses: Set<UInt8> = [GoProStatusID.connectedWiFiSSID.rawValue, GoProStatusID.accessPointSSID.rawValue]

    /// `{"statuses": {"<id>": HEX…}, "known": {"<id>": {"name", "value"}…}}`: every value in hex
    /// by ID, and for the IDs this library names, the name and the decoded number (or text).
    static func describe(statuses values: GoProValues) -> [String: JSONValue] {
        var raw: [String: JSONValue] = [:]
        var known: [String: JSONValue] = [:]
        for entry in values {
            raw[String(entry.id)] = .string(Array(entry.value).hexString)
            guard let name = GoProStatusID(entry.id).name else { continue }
            let decoded: JSONValue? =
                textStatuses.contains(entry.id) ? values.string(entry.id).map(JSONValue.string) : values.integer(entry.id).map(JSONValue.int)
            known[String(entry.id)] = .fields(["name": .string(name), "value": decoded ?? .null])
        }
        return ["statuses": .object(raw), "known": .object(known)]
    }

    /// One line per value for people: `70 internalBatteryPercentage = 53 (35)`.
    static func lines(statuses values: GoProValues) -> [String] {
        values.map { entry in
            let name = GoProStatusID(entry.id).name.map { " " + $0 } ?? ""
            let decoded: String? =
                textStatuses.contains(entry.id) ? values.string(entry.id).map { "\"\($0)\"" } : values.integer(entry.id).map { String($0) }
            return "\(entry.id)\(name) = \(decoded ?? "?") (\(Array(entry.value).hexString))"
        }
    }
}
