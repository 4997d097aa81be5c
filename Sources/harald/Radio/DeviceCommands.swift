import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldTerminal

/// Options naming one device.
struct DeviceOptions: ParsableArguments {
    @Argument(help: "Device address as `scan` prints it (F0:F1:F2:F3:F4:F5).")
    var address: String

    @Option(help: "public or random; when omitted, the address type is learnt by scanning.")
    var addressType: String?

    @Option(help: "Seconds to find and connect to the device.")
    var connectTimeout: Double = 10

    var connectDuration: Duration { .milliseconds(Int64(max(0, connectTimeout) * 1000)) }

    /// Finds and connects to the device.
    func connect(_ central: Central) async throws -> PeripheralConnection {
        try await central.waitUntilPoweredOn(timeout: .seconds(5))
        let target = try AddressArgument(address, addressType: addressType)
        let peripheral = try await target.resolve(on: central, timeout: connectDuration)
        return try await central.connect(to: peripheral, timeout: connectDuration)
    }
}

extension PeripheralConnection {
    /// The first characteristic with `uuid`, in any service.
    func findCharacteristic(_ uuid: BluetoothUUID) async throws -> DiscoveredCharacteristic {
        for (_, characteristics) in try await discoverAll() {
            if let found = characteristics.first(where: { $0.uuid == uuid }) { return found }
        }
        throw BluetoothError.notFound("characteristic \(uuid.uuidString)")
    }
}

/// A value as the radio commands print it: hex, and decoded when the registry knows the UUID.
func describeValue(_ bytes: [UInt8], uuid: BluetoothUUID) -> JSONValue {
    let decoded: JSONValue?
    do {
        decoded = try CharacteristicRegistry.harald.describe(bytes, as: uuid)
    } catch {
        decoded = .fields(["error": .string(error.description)])
    }
    return .fields(["uuid": .string(uuid.uuidString), "hex": .string(bytes.hexString), "decoded": decoded])
}

func parseUUID(_ text: String) throws -> BluetoothUUID {
    guard let uuid = BluetoothUUID(text) else { throw ValidationError("'\(text)' is not a Bluetooth UUID") }
    return uuid
}

/// `harald dump ADDRESS`: the GATT tree with every readable value.
struct Dump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Connect and print services, characteristics, descriptors and readable values.")

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        let json = radio.json
        let device = self.device
        let discovering = ProgressDisplay("discovering descriptors")
        let progress = ProgressDisplay("reading values")
        try await RadioSession.run(radio) { central in
            let connection = try await device.connect(central)
            var services: [JSONValue] = []
            var treeServices: [GATTTree.Service] = []
            // Discover everything, then read every readable value in one batch: the fewest round trips.
            let tree = try await connection.discoverAll()
            let all = tree.flatMap(\.characteristics)
            let descriptorLists = try await connection.discoverDescriptors(ofAll: all, progress: discovering)
            discovering.finish()
            let readable = all.filter { $0.properties.contains(.read) }
            var values: [AttributeID: JSONValue] = [:]
            var access: [AttributeID: GATTTree.Access] = [:]
            for (characteristic, result) in zip(readable, try await connection.readRawValues(of: readable, progress: progress)) {
                switch result {
                case let .success(bytes):
                    values[characteristic.id] = describeValue(bytes, uuid: characteristic.uuid)
                    access[characteristic.id] = .readable(bytes)
                case let .failure(.attribute(status, _)):
                    values[characteristic.id] = .fields(["error": .string(status.description)])
                    access[characteristic.id] = GATTTree.Access(readError: status)
                case let .failure(error): throw error
                }
            }
            progress.finish()
            var descriptorsByCharacteristic: [AttributeID: [DiscoveredDescriptor]] = [:]
            for (characteristic, descriptors) in zip(all, descriptorLists) { descriptorsByCharacteristic[characteristic.id] = descriptors }
            // Handles are printed when the backend sees them (not on CoreBluetooth).
            for (service, characteristics) in tree {
                var treeService = GATTTree.Service(uuid: service.uuid, handles: service.handles.map { ($0.start, $0.end) })
                var entries: [JSONValue] = []
                for characteristic in characteristics {
                    let descriptors = descriptorsByCharacteristic[characteristic.id] ?? []
                    let value = values[characteristic.id]
                    treeService.characteristics.append(
                        GATTTree.Characteristic(
                            uuid: characteristic.uuid, handle: characteristic.valueHandle, properties: characteristic.properties.names,
                            access: access[characteristic.id], descriptors: descriptors.map { GATTTree.Descriptor(uuid: $0.uuid, handle: $0.handle) }))
                    entries.append(
                        .fields([
                            "uuid": .string(characteristic.uuid.uuidString),
                            "handle": characteristic.valueHandle.map { JSONValue.int($0) },
                            "properties": .array(characteristic.properties.names.map { .string($0) }),
                            "descriptors": .array(
                                descriptors.map { .fields(["uuid": .string($0.uuid.uuidString), "handle": $0.handle.map { JSONValue.int($0) }]) }),
                            "value": value,
                        ]))
                }
                services.append(
                    .fields([
                        "uuid": .string(service.uuid.uuidString),
                        "startHandle": service.handles.map { JSONValue.int($0.start) }, "endHandle": service.handles.map { JSONValue.int($0.end) },
                        "characteristics": .array(entries),
                    ]))
                treeServices.append(treeService)
            }
            if json {
                Output.json(.fields(["address": .string(device.address.uppercased()), "services": .array(services)]))
            } else {
                for line in GATTTree.render(title: device.address.uppercased(), services: treeServices, registry: .harald) { Output.line(line) }
            }
            await connection.disconnect()
        }
    }
}

/// `harald read ADDRESS UUID`.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read", abstract: "Read one characteristic.",
        discussion: """
            Prints the value (hex and decoded), then a line with the security the link had for the read: the level \
            (1 no encryption, 2 encrypted, 3 authenticated, 4 authenticated LE Secure Connections with a 128-bit key), \
            LE Secure Connections or legacy, the key size and whether the device is bonded. With --json, one object on \
            stdout with the value and a "security" object (level, name, pairing, keySize, bonded).
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @Argument(help: "Characteristic UUID.") var uuid: String

    func run() async throws {
        let uuid = try parseUUID(self.uuid)
        let json = radio.json
        let device = self.device
        try await RadioSession.run(
            radio,
            secured: { central, session in
                let connection = try await device.connect(central)
                let characteristic = try await connection.findCharacteristic(uuid)
                let bytes = try await connection.readRaw(characteristic)
                let outcome = await session?.outcome()
                let report = SecurityReport(security: await connection.security(), bond: outcome?.storedBond ?? outcome?.usedBond)
                if json {
                    var value = describeValue(bytes, uuid: uuid)
                    if case var .object(members) = value {
                        members["security"] = report.json
                        value = .object(members)
                    }
                    Output.line(value.jsonText)
                } else {
                    Output.line("\(Labels.uuid(uuid, registry: .harald)): \(Labels.value(bytes, of: uuid, hexLimit: .max, registry: .harald))")
                    Output.line("security: \(report.text)")
                }
                await connection.disconnect()
            })
    }
}

/// `harald write ADDRESS UUID HEX`.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "write", abstract: "Write one characteristic.")

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @Argument(help: "Characteristic UUID.") var uuid: String
    @Argument(help: "Value in hex.") var hex: String
    @Flag(help: "Use Write Command (no acknowledgement).") var withoutResponse = false

    func run() async throws {
        let uuid = try parseUUID(self.uuid)
        let bytes: [UInt8]
        do { bytes = try Hex.decode(hex) } catch { throw ValidationError("malformed hex value: \(error)") }
        let json = radio.json
        let device = self.device
        let kind: WriteKind = withoutResponse ? .withoutResponse : .withResponse
        try await RadioSession.run(radio) { central in
            let connection = try await device.connect(central)
            let characteristic = try await connection.findCharacteristic(uuid)
            try await connection.writeRaw(bytes, to: characteristic, kind: kind)
            let result: JSONValue = .fields(["uuid": .string(uuid.uuidString), "hex": .string(bytes.hexString), "written": .bool(true)])
            Output.line(json ? result.jsonText : "wrote \(bytes.count) bytes to \(Labels.uuid(uuid, registry: .harald))")
            await connection.disconnect()
        }
    }
}

/// `harald subscribe ADDRESS UUID`: one line per notified value.
struct Subscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Subscribe to a characteristic and print each value.",
        discussion: """
            Text: a line per value with the time since subscribing, hex, the decoded fields and, when the value \
            holds a number, a sparkline of the recent ones. --json: a JSON line per value (uuid, hex, decoded).
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @Argument(help: "Characteristic UUID.") var uuid: String
    @Option(help: "Stop after this many values.") var count: Int?
    @Option(help: "Stop after this many seconds.") var timeout: Double = 30

    func run() async throws {
        let uuid = try parseUUID(self.uuid)
        let json = radio.json
        let device = self.device
        let limit = count
        let duration = Duration.milliseconds(Int64(max(0, timeout) * 1000))
        try await RadioSession.run(radio) { central in
            let connection = try await device.connect(central)
            let characteristic = try await connection.findCharacteristic(uuid)
            let subscription = try await connection.subscribe(characteristic, as: [UInt8].self)
            let stopwatch = Stopwatch(central.clock)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var received = 0
                    var lines = NotificationLines(uuid: uuid, registry: .harald)
                    for try await bytes in subscription {
                        let value = describeValue(bytes, uuid: uuid)
                        Output.line(json ? value.jsonText : lines.line(for: bytes, decoded: value["decoded"], at: stopwatch.elapsed))
                        received += 1
                        if let limit, received >= limit { return }
                    }
                }
                group.addTask { try await central.clock.sleep(for: duration) }
                try await group.next()
                group.cancelAll()
            }
            await connection.disconnect()
        }
    }
}
