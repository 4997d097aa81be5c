import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles

/// The device every peripheral-side scenario serves, on every peripheral backend: one 128-bit
/// service whose characteristics cover each thing a served device does. What its handlers saw
/// is kept in ``Record`` for the scenarios to check.
public struct PeripheralScenarioDevice: Sendable {
    public static let service: BluetoothUUID = "5CE41001-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Read: a handler answering how many reads it answered so far (a little-endian UInt16).
    public static let counter = Characteristic<UInt16, Read>("5CE41002-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Read and write, typed UInt16: stored, and the handler records each written value.
    public static let setting = Characteristic<UInt16, ReadWrite>("5CE41003-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Write: refuses commands starting with 0xFF with the application error 0x80.
    public static let command = Characteristic<[UInt8], Write>("5CE41004-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Read and notify: the served device's stream.
    public static let level = Characteristic<[UInt8], ReadNotify>("5CE41005-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Indicate.
    public static let alert = Characteristic<[UInt8], Indicate>("5CE41006-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Read: a stored value longer than any ATT_MTU (read with Read Blob).
    public static let blob = Characteristic<[UInt8], Read>("5CE41007-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Read, behind an authorization rule that lets a central in once ``Record/allow()`` was called.
    public static let guarded = Characteristic<[UInt8], Read>("5CE41008-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)
    /// Write without response: the handler records each value in order.
    public static let stream = Characteristic<[UInt8], WriteWithoutResponse>("5CE41009-9F3B-4D4E-8A5C-6B1D2E3F4A5B", service: service)

    public static let refusedCommand: UInt8 = 0xFF
    public static let refusal = ATTErrorCode(rawValue: 0x80)
    public static let blobValue: [UInt8] = (0..<300).map { UInt8($0 & 0xFF) }
    public static let guardedValue = Array("behind the rule".utf8)
    public static let levelInitial: [UInt8] = [0x2A]
    public static let levelDescription = "Level"
    /// uint8, percentage (0x27AD).
    public static let levelFormat = CharacteristicPresentationFormat(format: .uint8, unit: 0x27AD)
    public static let settingInitial: UInt16 = 0x0201

    /// Every characteristic of the service, with the properties it must be discovered with.
    public static let layout: [(BluetoothUUID, CharacteristicProperties)] = [
        (counter.uuid, [.read]), (setting.uuid, [.read, .write]), (command.uuid, [.write]), (level.uuid, [.read, .notify]),
        (alert.uuid, [.indicate]), (blob.uuid, [.read]), (guarded.uuid, [.read]), (stream.uuid, [.writeWithoutResponse]),
    ]

    /// What the device's handlers saw.
    public final class Record: Sendable {
        private let state = Locked<(reads: UInt16, settings: [UInt16], commands: [[UInt8]], stream: [[UInt8]], allowed: Bool)>(
            (0, [], [], [], false))
        public init() {}
        func nextRead() -> UInt16 {
            state.withLock {
                $0.reads += 1; return $0.reads
            }
        }
        func wrote(setting: UInt16) { state.withLock { $0.settings.append(setting) } }
        func wrote(command: [UInt8]) { state.withLock { $0.commands.append(command) } }
        func wrote(stream: [UInt8]) { state.withLock { $0.stream.append(stream) } }
        /// From now on the authorization rule lets every central in.
        public func allow() { state.withLock { $0.allowed = true } }
        var isAllowed: Bool { state.withLock { $0.allowed } }
        public var settings: [UInt16] { state.withLock { $0.settings } }
        public var commands: [[UInt8]] { state.withLock { $0.commands } }
        public var stream: [[UInt8]] { state.withLock { $0.stream } }
    }

    public let record = Record()
    public let definition: PeripheralDefinition

    /// The device, advertising `name` and its service.
    public init(name: String) throws {
        let record = self.record
        definition = try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: name, services: [Self.service])) {
            try ServiceDefinition(Self.service) {
                CharacteristicDefinition(Self.counter) { _ in record.nextRead() }
                try Self.settingDefinition(record)
                CharacteristicDefinition(Self.command) { (command: [UInt8], _) throws(ATTErrorCode) in
                    if command.first == Self.refusedCommand { throw Self.refusal }
                    record.wrote(command: command)
                }
                try CharacteristicDefinition(Self.level, value: Self.levelInitial).described(Self.levelDescription).formatted(Self.levelFormat)
                CharacteristicDefinition(Self.alert)
                try CharacteristicDefinition(Self.blob, value: Self.blobValue)
                try CharacteristicDefinition(Self.guarded, value: Self.guardedValue).authorized { _, _ in record.isAllowed }
                CharacteristicDefinition(Self.stream) { (value: [UInt8], _) in record.wrote(stream: value) }
            }
        }
    }

    /// The setting: its handler takes decoded writes; reads return the stored value.
    private static func settingDefinition(_ record: Record) throws -> CharacteristicDefinition {
        var definition = CharacteristicDefinition(Self.setting) { (value: UInt16, _) in record.wrote(setting: value) }
        definition.value = try settingInitial.encodedBytes()
        return definition
    }
}
