import Foundation

/// Descriptor values as bytes. CoreBluetooth decodes some descriptors for the app: the
/// Characteristic Extended Properties, Client and Server Characteristic Configuration and L2CAP
/// PSM descriptors arrive as `NSNumber` (16-bit values, put back little-endian), the User
/// Description as `String` (put back as UTF-8), the rest as `Data`.
enum DescriptorValue {
    static func bytes(_ value: Any?) -> [UInt8] {
        switch value {
        case let data as Data: return [UInt8](data)
        case let string as String: return Array(string.utf8)
        case let number as NSNumber:
            let raw = UInt16(truncatingIfNeeded: number.intValue)
            return [UInt8(raw & 0xFF), UInt8(raw >> 8)]
        case let bytes as [UInt8]: return bytes
        default: return []
        }
    }
}
