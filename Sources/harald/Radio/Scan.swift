import ArgumentParser
import Harald
import HaraldCodec
import HaraldProfiles

/// `harald scan`: prints each advertising device.
struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Scan for advertising devices.")

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
        let filter = request
        let json = radio.json
        let duration = Duration.milliseconds(Int64(max(0, timeout) * 1000))
        try await RadioSession.run(radio) { central in
            try await central.waitUntilPoweredOn(timeout: .seconds(5))
            let scan = central.scan(filter)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await advertisement in scan {
                        if json { Output.json(advertisement.jsonValue) } else { Output.line(advertisement.summary) }
                    }
                }
                group.addTask { try await central.clock.sleep(for: duration) }
                try await group.next()
                group.cancelAll()
            }
        }
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

    /// One line for people.
    var summary: String {
        let address = peripheral.address.map { "\($0.string) (\($0.kind))" } ?? peripheral.rawValue
        let services = serviceUUIDs.isEmpty ? "" : " services " + serviceUUIDs.map(\.uuidString).joined(separator: ",")
        return "\(address) rssi \(rssi.map { "\($0.dBm)" } ?? "unknown") \(localName.map { "\"\($0)\"" } ?? "(no name)")\(services)\(isConnectable ? "" : " non-connectable")"
    }
}
