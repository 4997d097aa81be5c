import Foundation
import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldATT
import HaraldCore
import HaraldTestSupport

/// Where scripts/integration put the Bumble bench (environment variables), or nil when the
/// integration tests are not meant to run.
enum Bumble {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for the Swift host.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_BUMBLE_TRANSPORT"] }
    /// PID of the "victim" peer, which one test kills.
    static var victimPID: Int32? { ProcessInfo.processInfo.environment["HARALD_BUMBLE_VICTIM_PID"].flatMap { Int32($0) } }
    static var isConfigured: Bool { transport != nil }

    static let heartRate = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
    static let camera = BluetoothAddress("C0:00:00:00:00:02", kind: .random)!
    static let longValue = BluetoothAddress("C0:00:00:00:00:03", kind: .random)!
    static let victim = BluetoothAddress("C0:00:00:00:00:04", kind: .random)!
    static let longValueUUID: BluetoothUUID = "6E40A001-3C1D-4B2A-9F3E-48415241C000"
    static let longServiceUUID: BluetoothUUID = "6E40A000-3C1D-4B2A-9F3E-48415241C000"

    /// A started host on the bench's central controller (or the one `specification` names),
    /// closed after `body`.
    static func withHost<R: Sendable>(
        on specification: String? = transport, snoop: BTSnoopWriter? = nil, legacyCommands: Bool = false,
        preferredPHY: UInt8? = nil, _ body: @escaping @Sendable (HCIHost) async throws -> R
    ) async throws -> R {
        let specification = try #require(specification)
        var configuration = HCIHost.Configuration()
        configuration.preferLegacyCommands = legacyCommands
        configuration.preferredPHY = preferredPHY
        let host = HCIHost(transport: try openHCITransport(specification), configuration: configuration, snoop: snoop)
        do {
            let controller = try await host.start()
            // Bumble's controllers advertise the extended feature: both command sets get exercised.
            #expect(legacyCommands || controller.supports(.extendedAdvertising))
            let result = try await withHangGuard { try await body(host) }
            await host.close()
            return result
        } catch {
            await host.close()
            throw error
        }
    }
}
/// Raw ATT over a connection's fixed channel: requests with their responses, notifications kept
/// aside. Just enough ATT for the host-stack tests (the real ATT/GATT client is HaraldATT).
final class RawATT: @unchecked Sendable {
    // Safety: used from one test task at a time; the iterator is only touched by `next()` calls
    // that the test awaits one after another.
    let channel: L2CAPFixedChannel
    private var iterator: AsyncStream<[UInt8]>.Iterator
    private(set) var notifications: [[UInt8]] = []

    init(_ connection: LEConnection) {
        channel = connection.att
        iterator = connection.att.incoming.makeAsyncIterator()
    }

    struct LinkClosed: Error {}

    /// The next PDU that is not a notification.
    func nextResponse() async throws -> [UInt8] {
        while true {
            guard let pdu = await iterator.next() else { throw LinkClosed() }
            if pdu.first == 0x1B { notifications.append(pdu); continue }
            return pdu
        }
    }

    /// The next notification (including ones that arrived while waiting for responses).
    func nextNotification() async throws -> [UInt8] {
        if !notifications.isEmpty { return notifications.removeFirst() }
        while true {
            guard let pdu = await iterator.next() else { throw LinkClosed() }
            if pdu.first == 0x1B { return pdu }
        }
    }

    func request(_ pdu: [UInt8]) async throws -> [UInt8] {
        try await channel.send(pdu)
        return try await nextResponse()
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func word(_ bytes: [UInt8], _ index: Int) -> UInt16 { UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8 }

    /// Exchange MTU; returns the server's receive MTU and records min(client, server) on the channel.
    func exchangeMTU(_ mtu: UInt16) async throws -> UInt16 {
        let response = try await request([0x02] + Self.le16(mtu))
        guard response.count == 3, response[0] == 0x03 else { throw ATTFailure(response) }
        let server = Self.word(response, 1)
        channel.setMTU(Int(min(mtu, server)))
        return server
    }

    /// Discover all primary services: (start, end, UUID) by repeated Read By Group Type.
    func primaryServices() async throws -> [(start: UInt16, end: UInt16, uuid: BluetoothUUID)] {
        var services: [(UInt16, UInt16, BluetoothUUID)] = []
        var start: UInt16 = 1
        while true {
            let response = try await request([0x10] + Self.le16(start) + Self.le16(0xFFFF) + Self.le16(0x2800))
            if response.first == 0x01 { break }  // Attribute Not Found: done
            guard response.first == 0x11, response.count >= 2 else { throw ATTFailure(response) }
            let length = Int(response[1])
            var index = 2
            var last: UInt16 = 0
            while index + length <= response.count, length >= 6 {
                let entry = Array(response[index..<(index + length)])
                let uuidBytes = Array(entry[4...])
                guard let uuid = Self.uuid(uuidBytes) else { throw ATTFailure(response) }
                services.append((Self.word(entry, 0), Self.word(entry, 2), uuid))
                last = Self.word(entry, 2)
                index += length
            }
            if last == 0xFFFF || last == 0 { break }
            start = last + 1
        }
        return services
    }

    /// A little-endian 2- or 16-byte UUID from an ATT response, or nil for any other length.
    static func uuid(_ bytes: [UInt8]) -> BluetoothUUID? {
        try? ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) in
            try BluetoothUUID.read(from: &reader, byteCount: bytes.count == 2 ? 2 : (bytes.count == 16 ? 16 : -1), field: "uuid")
        }
    }

    /// Characteristic declarations in a range: (value handle, properties, UUID).
    func characteristics(from start: UInt16 = 1, to end: UInt16 = 0xFFFF) async throws -> [(handle: UInt16, properties: UInt8, uuid: BluetoothUUID)] {
        var found: [(UInt16, UInt8, BluetoothUUID)] = []
        var next = start
        while next <= end {
            let response = try await request([0x08] + Self.le16(next) + Self.le16(end) + Self.le16(0x2803))
            if response.first == 0x01 { break }
            guard response.first == 0x09, response.count >= 2 else { throw ATTFailure(response) }
            let length = Int(response[1])
            var index = 2
            var lastDeclaration: UInt16 = next
            while index + length <= response.count, length >= 7 {
                let entry = Array(response[index..<(index + length)])
                lastDeclaration = Self.word(entry, 0)
                guard let uuid = Self.uuid(Array(entry[5...])) else { throw ATTFailure(response) }
                found.append((Self.word(entry, 3), entry[2], uuid))
                index += length
            }
            if lastDeclaration == 0xFFFF { break }
            next = lastDeclaration + 1
        }
        return found
    }

    /// Read Request, then Read Blob until a short part: the whole value.
    func readLong(_ handle: UInt16) async throws -> [UInt8] {
        let first = try await request([0x0A] + Self.le16(handle))
        guard first.first == 0x0B else { throw ATTFailure(first) }
        var value = Array(first.dropFirst())
        let part = channel.mtu - 1
        guard value.count == part else { return value }
        while true {
            let blob = try await request([0x0C] + Self.le16(handle) + Self.le16(UInt16(value.count)))
            if blob.first == 0x01 { break }  // Invalid Offset / Attribute Not Long: the end
            guard blob.first == 0x0D else { throw ATTFailure(blob) }
            value += blob.dropFirst()
            if blob.count - 1 < part { break }
        }
        return value
    }

    /// Prepare Write chunks, then Execute Write.
    func writeLong(_ handle: UInt16, _ value: [UInt8]) async throws {
        let chunk = channel.mtu - 5
        var offset = 0
        while offset < value.count {
            let part = Array(value[offset..<min(value.count, offset + chunk)])
            let response = try await request([0x16] + Self.le16(handle) + Self.le16(UInt16(offset)) + part)
            guard response.first == 0x17, Array(response.dropFirst(5)) == part else { throw ATTFailure(response) }
            offset += part.count
        }
        let executed = try await request([0x18, 0x01])
        guard executed == [0x19] else { throw ATTFailure(executed) }
    }
}

struct ATTFailure: Error, CustomStringConvertible {
    let pdu: [UInt8]
    init(_ pdu: [UInt8]) { self.pdu = pdu }
    var description: String { "unexpected ATT PDU \(pdu.hexString)" }
}
