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
    /// Turning on the Service Changed indications before the first discovery, as the public
    /// API's connections do (`GATTClient/watchServiceChanged(timeout:)`): Read By Type 0x2A05,
    /// Find Information and the CCCD write, or only the Read By Type when the database has no
    /// Service Changed characteristic. Zero for the per-service procedures, which run on the
    /// GATT client alone.
    public var serviceChangedSetUp = 0

    /// Every round trip of a full discovery.
    public var total: Int { exchangeMTU + serviceChangedSetUp + services + characteristics + descriptors }

    /// The minimum for `database` at `mtu` with the per-service procedures, assuming the server
    /// fills every response.
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

extension DiscoveryCost {
    /// The minimum for discovering every primary service, characteristic and descriptor of
    /// `database` at `mtu` with sweeps (`GATTClient/discoverCharacteristics(ofAll:timeout:)`,
    /// `GATTClient/discoverDescriptors(ofAll:timeout:)`), the public API's default.
    ///
    /// - Services: as for the per-service procedures.
    /// - Characteristics: one Read By Type run over every declaration of the primary services, in
    ///   handle order (⌊(MTU − 2) / (5 + UUID bytes)⌋ per response, sizes not mixed), ended by
    ///   Attribute Not Found: the last declaration is followed by its value, so the run cannot
    ///   know it has seen everything.
    /// - Descriptors: Find Information lists every attribute of its range from the start, so a
    ///   request that spans two characteristics also lists the declaration and value between
    ///   them. The fewest requests that cover every descriptor handle start each one at the first
    ///   descriptor handle not yet listed (greedy covering from the left is optimal here); a
    ///   response holds ⌊(MTU − 2) / 4⌋ attributes with 16-bit types or ⌊(MTU − 2) / 18⌋ with
    ///   128-bit ones, and stops where the type size changes. Descriptor types are taken as 16-bit
    ///   (as above); service and characteristic declarations and includes are 16-bit, values have
    ///   their characteristic's UUID. No request ends the run: its last response reaches the last
    ///   descriptor handle.
    /// - Service Changed: 3 requests when the database has the characteristic (its CCCD right
    ///   after the value, as `GATTDatabase` lays it out), 1 when not (``serviceChangedSetUp``).
    public init(sweeping database: GATTDatabase, mtu: Int) {
        let perService = DiscoveryCost(database: database, mtu: mtu)
        serviceChangedSetUp = database.serviceChanged == nil ? 1 : 3
        let room = max(mtu, ATT.defaultMTU) - 2
        services = perService.services
        let primary = database.characteristics.filter { $0.service.isPrimary }.map(\.characteristic)
        // Declarations in handle order, packed as in the per-service count.
        var runs = 0
        var index = 0
        let sizes = primary.map { $0.uuid.uuid16 == nil ? 16 : 2 }
        while index < sizes.count {
            let size = sizes[index]
            let perResponse = max(1, room / (5 + size))
            var taken = 0
            while index < sizes.count, sizes[index] == size, taken < perResponse {
                taken += 1
                index += 1
            }
            runs += 1
        }
        characteristics = runs + 1
        // UUID size of every attribute a Find Information sweep can list, by handle.
        var typeSize: [Int: Int] = [:]
        var descriptorHandles: [Int] = []
        for service in database.services where service.isPrimary {
            for handle in Int(service.handles.start)...Int(service.handles.end) { typeSize[handle] = 2 }
        }
        for characteristic in primary {
            typeSize[Int(characteristic.valueHandle)] = characteristic.uuid.uuid16 == nil ? 16 : 2
            if characteristic.endHandle > characteristic.valueHandle {
                descriptorHandles += Array((Int(characteristic.valueHandle) + 1)...Int(characteristic.endHandle))
            }
        }
        descriptors = 0
        guard let last = descriptorHandles.last else { return }
        var next = descriptorHandles.startIndex
        while next < descriptorHandles.endIndex {
            // One request from the first descriptor handle not listed yet.
            descriptors += 1
            var handle = descriptorHandles[next]
            let size = typeSize[handle] ?? 2
            let perResponse = max(1, room / (2 + size))
            var listed = 0
            var lastListed = handle
            while handle <= last, (typeSize[handle] ?? 2) == size, listed < perResponse {
                lastListed = handle
                listed += 1
                handle += 1
            }
            while next < descriptorHandles.endIndex, descriptorHandles[next] <= lastListed { next += 1 }
        }
    }
}

extension PeripheralRuntime {
    /// The fewest round trips a full discovery of this device needs at `mtu` with the
    /// per-service procedures.
    public func minimumDiscoveryCost(mtu: Int) async -> DiscoveryCost {
        DiscoveryCost(database: await server.database, mtu: mtu)
    }

    /// The fewest round trips a full discovery of this device needs at `mtu` with sweeps.
    public func minimumSweepDiscoveryCost(mtu: Int) async -> DiscoveryCost {
        DiscoveryCost(sweeping: await server.database, mtu: mtu)
    }
}
