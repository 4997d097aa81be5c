import Harald
import HaraldAdvertisements
import HaraldProfiles

/// Decides what a gateway publishes for the devices it hears: a value that feeds on
/// advertisements and the time, and returns the messages to send.
///
/// Rules (``GatewayPolicy``): each device's report merges what its advertisements carried; it is
/// published when its content changed (a decoded value, the name, the TX power, or the RSSI by
/// ``GatewayPolicy/rssiChange`` dB), at most once per ``GatewayPolicy/minimumInterval`` (a
/// change heard sooner goes out from ``tick(at:)`` when the interval has passed, as the latest
/// state), and again every ``GatewayPolicy/refreshInterval`` while the device is heard. Every
/// decoded value gets one retained Home Assistant discovery config, sent before the first report
/// that carries it, again when the device's name or manufacturer changes, and again for every
/// device after ``rediscover()``. Memory is bounded: a device not heard within
/// ``GatewayPolicy/staleTime`` is forgotten at the next tick, and at most
/// ``GatewayPolicy/maximumDevices`` are kept.
///
/// Advertisements without a device address (CoreBluetooth names peripherals by UUID) are
/// counted in ``unaddressedCount`` and not published: the topic layout needs the address.
public struct DeviceReporter: Sendable {
    /// The gateway's topics.
    public let topics: GatewayTopics
    /// The rules in force.
    public let policy: GatewayPolicy
    /// The decoders run over every advertisement.
    public let decoders: AdvertisementDecoderRegistry

    private struct Entry: Sendable {
        var report: DeviceReport
        var lastHeard: Duration
        /// What the last report said, and when it went; nil before the first.
        var published: DeviceReport?
        var publishedAt: Duration?
        /// Heard since the last report (a refresh is due only for a device still heard).
        var heardSincePublished = false
        /// The keys whose discovery config went, and the device identity they named.
        var announced: Set<String> = []
        var announcedIdentity: DeviceIdentity?
    }

    private struct DeviceIdentity: Hashable, Sendable {
        var name: String?
        var manufacturer: AdvertisementValue?
    }

    private var entries: [BluetoothAddress: Entry] = [:]
    /// Advertisements dropped because they named no device address.
    public private(set) var unaddressedCount = 0
    /// Devices forgotten to stay within ``GatewayPolicy/maximumDevices``.
    public private(set) var evictedCount = 0

    /// A reporter for the gateway of `topics`.
    public init(topics: GatewayTopics, policy: GatewayPolicy = GatewayPolicy(), decoders: AdvertisementDecoderRegistry = .standard) {
        self.topics = topics
        self.policy = policy
        self.decoders = decoders
    }

    /// The devices remembered now.
    public var deviceCount: Int { entries.count }

    /// The report of the device at `address`, if remembered.
    public func report(of address: BluetoothAddress) -> DeviceReport? { entries[address]?.report }

    /// The address (with its type) of a remembered device whose 48 bits are `address`'s.
    public func heardAddress(matching address: BluetoothAddress) -> BluetoothAddress? {
        if entries[address] != nil { return address }
        let other = address.with(kind: address.kind == .public ? .random : .public)
        return entries[other] != nil ? other : nil
    }

    // MARK: Input

    /// Takes one advertisement heard at `now` (a monotonic clock's reading); returns what to
    /// publish at once.
    public mutating func receive(_ advertisement: Advertisement, at now: Duration) -> [GatewayMessage] {
        guard let address = advertisement.peripheral.address else {
            unaddressedCount += 1
            return []
        }
        let heardAddress = advertisement.resolvedPrivateAddress ?? address
        let decoding = decoders.decode(ReceivedAdvertisement(data: advertisement.data, address: heardAddress))
        var entry = entries[address] ?? Entry(report: DeviceReport(address: address), lastHeard: now)
        entry.lastHeard = now
        entry.heardSincePublished = true
        entry.report.resolvedPrivateAddress = advertisement.resolvedPrivateAddress
        if let name = advertisement.data.localName, !name.isEmpty { entry.report.name = name }
        if let rssi = advertisement.rssi { entry.report.rssi = Int(rssi.dBm) }
        if let txPower = advertisement.data.txPowerLevel { entry.report.txPower = Int(txPower) }
        if let bthome = advertisement.data.serviceData[BTHomePacket.serviceUUID] { entry.report.bthomeServiceData = bthome }
        for reading in decoding.readings { entry.report.readings[reading.key] = reading }
        let isNew = entries[address] == nil
        entries[address] = entry
        if isNew, entries.count > policy.maximumDevices { evictLongestUnheard(keeping: address) }
        guard changed(entry), isAllowed(entry, at: now) else { return [] }
        return publish(address, at: now)
    }

    /// Takes the value a poll read from the device at `address` (a characteristic, decoded) under
    /// `key`; returns what to publish at once. A single number, state or text (or an object of
    /// one such field) becomes a reading
    /// (with a discovery config); anything else is published as decoded. A device that answered
    /// is present.
    public mutating func receivePoll(of address: BluetoothAddress, key: String, value: JSONValue, at now: Duration) -> [GatewayMessage] {
        var entry = entries[address] ?? Entry(report: DeviceReport(address: address), lastHeard: now)
        entry.lastHeard = now
        entry.heardSincePublished = true
        // A value of one field ({"level": 87}, as the registry describes a battery level) is that field.
        var value = value
        if case let .object(members) = value, members.count == 1, let only = members.values.first { value = only }
        let scalar: AdvertisementValue? =
            switch value {
            case let .integer(number): .number(Double(number))
            case let .number(number): .number(number)
            case let .bool(flag): .bool(flag)
            case let .string(text): .text(text)
            case .null, .array, .object: nil
            }
        if let scalar {
            entry.report.readings[key] = AdvertisementReading(key: key, value: scalar, decoder: "GATT")
            entry.report.polled[key] = nil
        } else {
            entry.report.polled[key] = value
            entry.report.readings[key] = nil
        }
        let isNew = entries[address] == nil
        entries[address] = entry
        if isNew, entries.count > policy.maximumDevices { evictLongestUnheard(keeping: address) }
        guard changed(entry), isAllowed(entry, at: now) else { return [] }
        return publish(address, at: now)
    }

    /// Publishes what is due at `now`: held changes whose interval has passed and refreshes of
    /// devices still heard; forgets devices not heard within the stale time. Call it every
    /// fraction of ``GatewayPolicy/minimumInterval``.
    public mutating func tick(at now: Duration) -> [GatewayMessage] {
        var messages: [GatewayMessage] = []
        for (address, entry) in entries {
            if now - entry.lastHeard >= policy.staleTime {
                entries[address] = nil
                continue
            }
            guard entry.heardSincePublished, isAllowed(entry, at: now) else { continue }
            let refreshDue = entry.publishedAt.map { now - $0 >= policy.refreshInterval } ?? true
            if changed(entry) || refreshDue { messages += publish(address, at: now) }
        }
        return messages
    }

    /// Forgets which discovery configs were sent, so each device's go again with its next
    /// report: after the broker lost its retained messages, or Home Assistant restarted.
    public mutating func rediscover() {
        for address in entries.keys {
            entries[address]?.announced = []
            entries[address]?.announcedIdentity = nil
        }
    }

    // MARK: Rules

    private func changed(_ entry: Entry) -> Bool {
        guard let published = entry.published else { return true }
        if entry.report.content != published.content { return true }
        switch (entry.report.rssi, published.rssi) {
        case let (now?, then?): return abs(now - then) >= policy.rssiChange
        case (nil, nil): return false
        default: return true
        }
    }

    private func isAllowed(_ entry: Entry, at now: Duration) -> Bool {
        guard let publishedAt = entry.publishedAt else { return true }
        return now - publishedAt >= policy.minimumInterval
    }

    private mutating func publish(_ address: BluetoothAddress, at now: Duration) -> [GatewayMessage] {
        guard var entry = entries[address] else { return [] }
        var messages: [GatewayMessage] = []
        if policy.homeAssistantDiscovery {
            let identity = DeviceIdentity(name: entry.report.name, manufacturer: entry.report.readings["manufacturer"]?.value)
            if identity != entry.announcedIdentity {
                entry.announced = []
                entry.announcedIdentity = identity
            }
            for reading in entry.report.readings.values.sorted(by: { $0.key < $1.key })
            where HomeAssistantDiscovery.announces(reading) && !entry.announced.contains(reading.key) {
                messages.append(HomeAssistantDiscovery.config(for: reading, of: entry.report, topics: topics, expireAfter: policy.staleTime))
                entry.announced.insert(reading.key)
            }
        }
        messages.append(
            GatewayMessage(topic: topics.device(address), payload: entry.report.json(gateway: topics.gateway).bytes, retain: false, kind: .report))
        entry.published = entry.report
        entry.publishedAt = now
        entry.heardSincePublished = false
        entries[address] = entry
        return messages
    }

    /// Forgets the longest-unheard eighth of the table (at least one device), never `kept`.
    private mutating func evictLongestUnheard(keeping kept: BluetoothAddress) {
        let count = max(1, entries.count / 8)
        let oldest = entries.lazy.filter { $0.key != kept }.sorted { $0.value.lastHeard < $1.value.lastHeard }.prefix(count)
        for (address, _) in oldest { entries[address] = nil }
        evictedCount += oldest.count
    }
}
