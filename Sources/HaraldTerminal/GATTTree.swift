import HaraldCodec
import HaraldCore
import HaraldProfiles

/// `harald dump` as a tree: service → characteristic → descriptors, with handles, properties,
/// what reading taught about access, and values.
public enum GATTTree {
    public struct Service: Sendable {
        public var uuid: BluetoothUUID
        /// First and last handle, when the backend sees handles.
        public var handles: (start: UInt16, end: UInt16)?
        public var characteristics: [Characteristic]

        public init(uuid: BluetoothUUID, handles: (start: UInt16, end: UInt16)? = nil, characteristics: [Characteristic] = []) {
            self.uuid = uuid
            self.handles = handles
            self.characteristics = characteristics
        }
    }

    public struct Characteristic: Sendable {
        public var uuid: BluetoothUUID
        public var handle: UInt16?
        /// Property names (`read`, `notify`, …).
        public var properties: [String]
        /// What reading the value found; nil when it was not read (no read property).
        public var access: Access?
        public var descriptors: [Descriptor]

        public init(uuid: BluetoothUUID, handle: UInt16? = nil, properties: [String], access: Access? = nil, descriptors: [Descriptor] = []) {
            self.uuid = uuid
            self.handle = handle
            self.properties = properties
            self.access = access
            self.descriptors = descriptors
        }
    }

    public struct Descriptor: Sendable {
        public var uuid: BluetoothUUID
        public var handle: UInt16?

        public init(uuid: BluetoothUUID, handle: UInt16? = nil) {
            self.uuid = uuid
            self.handle = handle
        }
    }

    /// The outcome of reading a characteristic.
    public enum Access: Sendable, Equatable {
        /// Read; the value.
        case readable([UInt8])
        /// The device refused: Insufficient Encryption (0x0F) or Authentication (0x05).
        case needsEncryption(ATTErrorCode)
        /// The device refused: Insufficient Authorization (0x08).
        case needsAuthorization
        /// The device refused: Read Not Permitted (0x02) despite the read property.
        case notReadable
        /// Another ATT error.
        case failed(ATTErrorCode)

        /// Sorts an ATT error from a read into the access it reveals.
        public init(readError status: ATTErrorCode) {
            switch status {
            case .insufficientEncryption, .insufficientAuthentication, .encryptionKeySizeTooShort: self = .needsEncryption(status)
            case .insufficientAuthorization: self = .needsAuthorization
            case .readNotPermitted: self = .notReadable
            default: self = .failed(status)
            }
        }
    }

    /// The tree's lines under a `title` line (the device); names and values of vendor
    /// characteristics come from `registry`.
    public static func render(title: String, services: [Service], registry: CharacteristicRegistry = .standard) -> [String] {
        var lines = [title]
        for (serviceIndex, service) in services.enumerated() {
            let lastService = serviceIndex == services.count - 1
            let handles = service.handles.map { "  handles \($0.start)–\($0.end)" } ?? ""
            lines.append((lastService ? "└─ " : "├─ ") + Labels.uuid(service.uuid) + handles)
            let serviceIndent = lastService ? "   " : "│  "
            for (index, characteristic) in service.characteristics.enumerated() {
                let last = index == service.characteristics.count - 1
                var line = serviceIndent + (last ? "└─ " : "├─ ") + Labels.uuid(characteristic.uuid, registry: registry)
                if let handle = characteristic.handle { line += "  handle \(handle)" }
                line += "  [" + characteristic.properties.joined(separator: ", ") + "]"
                if let access = characteristic.access { line += "  " + accessText(access) }
                lines.append(line)
                let indent = serviceIndent + (last ? "   " : "│  ")
                // The value right under its characteristic, before the descriptors' branches.
                if case let .readable(bytes) = characteristic.access {
                    lines.append(
                        indent + (characteristic.descriptors.isEmpty ? "   " : "│  ") + "= " + Labels.value(bytes, of: characteristic.uuid, registry: registry))
                }
                for (descriptorIndex, descriptor) in characteristic.descriptors.enumerated() {
                    let lastDescriptor = descriptorIndex == characteristic.descriptors.count - 1
                    let handle = descriptor.handle.map { "  handle \($0)" } ?? ""
                    lines.append(indent + (lastDescriptor ? "└─ " : "├─ ") + Labels.uuid(descriptor.uuid) + handle)
                }
            }
        }
        return lines
    }

    static func accessText(_ access: Access) -> String {
        switch access {
        case .readable: "readable"
        case let .needsEncryption(status): "needs encryption (\(status))"
        case .needsAuthorization: "needs authorization"
        case .notReadable: "not readable"
        case let .failed(status): "read failed: \(status)"
        }
    }
}
