import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldTerminal

/// `harald scan`: a live table on a terminal; a line (or JSON line) per device when piped.
struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan for advertising devices.",
        discussion: """
            On a terminal: a live table (address, name, RSSI with a bar, services, manufacturer), strongest \
            first, redrawn in place. Piped: one line per device (per advertisement with --all); --json: JSON lines.
            """)

    @OptionGroup var radio: RadioOptions

    @Option(help: "Seconds to scan.")
    var timeout: Double = 5

    @Option(help: "Only devices advertising this service UUID.")
    var service: String?

    @Option(help: "Only devices whose name starts with this.")
    var name: String?

    @Flag(help: "Report every advertisement, not each device once.")
    var all = false

    func run() async throws {
        var request = ScanRequest(duplicates: all ? .reportAll : .reportOnce)
        if let service {
            guard let uuid = BluetoothUUID(service) else { throw ValidationError("'\(service)' is not a Bluetooth UUID") }
            request.services = [uuid]
        }
        request.namePrefix = name
        let json = radio.json
        // The live table follows each device's RSSI, so it asks for every advertisement.
        let live = !json && Terminal.stdoutIsTerminal
        if live { request.duplicates = .reportAll }
        let filter = request
        let duration = Duration.milliseconds(Int64(max(0, timeout) * 1000))
        let width = Terminal.width
        try await RadioSession.run(radio) { central in
            try await central.waitUntilPoweredOn(timeout: .seconds(5))
            let scan = central.scan(filter)
            let table = LiveScanTable(width: width)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await advertisement in scan {
                        if live {
                            table.add(advertisement)
                        } else if json {
                            Output.json(advertisement.jsonValue)
                        } else {
                            Output.line(advertisement.summary)
                        }
                    }
                }
                group.addTask { try await central.clock.sleep(for: duration) }
                try await group.next()
                group.cancelAll()
            }
            if live { table.finish() }
        }
    }
}

/// The table on the terminal: redrawn when an advertisement changes it, at most ten times a
/// second (wall-clock time, also on the simulator's virtual clock), and once more at the end.
final class LiveScanTable: Sendable {
    private struct State {
        var table = ScanTable()
        var linesDrawn = 0
        var lastDraw: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    private let width: Int

    init(width: Int) { self.width = width }

    func add(_ advertisement: Advertisement) {
        state.withLock { state in
            state.table.update(advertisement.scanTableDevice)
            let now = ContinuousClock.now
            if let last = state.lastDraw, now - last < .milliseconds(100) { return }
            state.lastDraw = now
            draw(&state)
        }
    }

    func finish() {
        state.withLock { state in
            draw(&state)
            let count = state.table.devices.count
            Output.line("\(count) device\(count == 1 ? "" : "s")")
        }
    }

    private func draw(_ state: inout State) {
        let lines = state.table.render(width: width)
        FileHandle.standardOutput.write(Data(TerminalFrame.redraw(lines, previousLineCount: state.linesDrawn).utf8))
        state.linesDrawn = lines.count
    }
}

extension Advertisement {
    /// The `harald scan --json` form.
    var jsonValue: JSONValue {
        var serviceData: [String: JSONValue] = [:]
        for (uuid, bytes) in data.serviceData { serviceData[uuid.uuidString] = .string(bytes.hexString) }
        return .fields([
            "address": .string(peripheral.address?.string ?? peripheral.rawValue),
            "addressType": peripheral.address.map { .string($0.kind.description) },
            "rssi": rssi.map { .int($0.dBm) },
            "name": localName.map { .string($0) },
            "serviceUUIDs": .array(serviceUUIDs.map { .string($0.uuidString) }),
            "manufacturerData": data.manufacturerData.map {
                .fields(["companyID": .int($0.companyID), "data": .string($0.data.hexString)])
            },
            "serviceData": serviceData.isEmpty ? nil : .object(serviceData),
            "connectable": .bool(isConnectable),
        ])
    }

    /// One line for people: address, RSSI, name, services and manufacturer with their SIG names.
    var summary: String {
        let address = peripheral.address.map { "\($0.string) (\($0.kind))" } ?? peripheral.rawValue
        let services = serviceUUIDs.isEmpty ? "" : " services " + serviceUUIDs.map { Labels.uuid($0) }.joined(separator: ", ")
        let maker = data.manufacturerData.map { " manufacturer " + Labels.company($0.companyID) } ?? ""
        let appearance = data.appearance.map { " appearance " + Labels.appearance($0) } ?? ""
        return
            "\(address) rssi \(rssi.map { "\($0.dBm)" } ?? "unknown") \(localName.map { "\"\($0)\"" } ?? "(no name)")\(services)\(maker)\(appearance)\(isConnectable ? "" : " non-connectable")"
    }

    /// The row of the live table.
    var scanTableDevice: ScanTable.Device {
        ScanTable.Device(
            address: peripheral.address?.string ?? peripheral.rawValue, addressKind: peripheral.address.map { "\($0.kind)" },
            name: localName, rssi: rssi.map { Int($0.dBm) }, services: serviceUUIDs, companyID: data.manufacturerData?.companyID,
            appearance: data.appearance, connectable: isConnectable)
    }
}
