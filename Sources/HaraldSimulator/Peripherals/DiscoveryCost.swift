import HaraldATT
import HaraldCodec

/// The fewest request/response round trips the GATT discovery procedures need for one
/// attribute database at one ATT_MTU (Core spec Vol 3 Part G §4, protocols.md D.5): the yardstick
/// next to which benchmarks report what a client actually spent.
public struct DiscoveryCost: Hashable, Sendable {
    /// Exchange MTU (one per connection).
    public var exchangeMTU = 1
    /// Discover All Primary Services: Read By Group Type until Attribute Not Found.
    public var services = 0
    /// Discover All Characteristics of each service: Read By Type until Attribute Not Found.
    public var characteristics = 0
    /// Discover All Descriptors of each characteristic with room for descriptors: Find Information.
    public var descriptors = 0

    /// Every round trip of a full discovery.
    public var total: Int { exchangeMTU + services + characteristics + descriptors }

    /// The minimum for `database` at `mtu`, assuming the server fills every response.
    ///
    /// Entries in one response share one length, so 16-bit and 128-bit UUIDs go in separate
    /// responses: a response holds ⌊(MTU − 2) / entry⌋ entries of 4 + UUID bytes (services),
    /// 5 + UUID bytes (characteristic declarations) or 2 + UUID bytes (descriptors; taken as
    /// 16-bit here). Service and characteristic discovery end with an Attribute Not Found;
    /// descriptor discovery ends when the last descriptor closes the range.
    public init(database: GATTDatabase, mtu: Int) {
        let room = max(mtu, ATT.defaultMTU) - 2
        func responses(_ sizes: [Int], entryOverhead: Int) -> Int {
            var count = 0
            var index = 0
            // Each response takes as many entries of the next entry's size as fit.
            while index < sizes.count {
                let size = sizes[index]
                let perResponse = max(1, room / (entryOverhead + size))
                var taken = 0
                while index < sizes.count, sizes[index] == size, taken < perResponse {
                    taken += 1
                    index += 1
                }
                count += 1
            }
            return count
        }
        func uuidSize(_ uuid: BluetoothUUID) -> Int { uuid.uuid16 == nil ? 16 : 2 }
        let primary = database.services.filter(\.isPrimary)
        services = responses(primary.map { uuidSize($0.uuid) }, entryOverhead: 4) + 1
        for service in database.services where service.isPrimary {
            let inService = database.characteristics.filter { $0.service == service }.map(\.characteristic)
            characteristics += responses(inService.map { uuidSize($0.uuid) }, entryOverhead: 5) + 1
            for characteristic in inService where characteristic.endHandle > characteristic.valueHandle {
                let count = Int(characteristic.endHandle - characteristic.valueHandle)
                descriptors += (count + room / 4 - 1) / (room / 4)
            }
        }
    }
}

extension PeripheralRuntime {
    /// The fewest round trips a full discovery of this device needs at `mtu`.
    public func minimumDiscoveryCost(mtu: Int) async -> DiscoveryCost {
        DiscoveryCost(database: await server.database, mtu: mtu)
    }
}
