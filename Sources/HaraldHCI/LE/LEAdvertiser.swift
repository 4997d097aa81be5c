import HaraldCore

/// The host's advertising as a peripheral: what is on air, the commands that put it there, stop,
/// pause and resume it, and who is told of the connections centrals make.
///
/// Legacy advertising uses LE Set Advertising Parameters, Data, Scan Response Data and Enable
/// (Core spec Vol 4 Part E §7.8.5–9); extended advertising one advertising set (§7.8.52–56, data
/// in fragments of 251 octets, §7.8.54) with the host's random address. A controller stops
/// connectable advertising when a central connects (Vol 6 Part B §4.4.2.3). A value the host
/// drives: the host sends the commands and reads the controller's limit for extended data.
package struct LEAdvertiser: Sendable {
    /// The advertising set Harald uses for extended advertising.
    package static let advertisingSet: UInt8 = 0

    /// What is on air now (nil: nothing).
    package var current: HostAdvertising?
    /// Streams of ``HCIHost/incomingConnections()``, by identity.
    package private(set) var watchers: [UInt64: AsyncStream<LEConnection>.Continuation] = [:]

    /// Nothing on air, nobody watching.
    package init() {}

    // MARK: Commands

    /// The commands that start `advertising` (after what was on air is stopped): parameters,
    /// data, scan response, enable. Throws ``HCIError/unsupported(_:)`` for data that does not fit
    /// legacy advertising or an interval out of range.
    package static func startCommands(_ advertising: LegacyAdvertising) throws(HCIError) -> [HCICommand] {
        do throws(LegacyAdvertising.Problem) { try advertising.validate() } catch {
            throw .unsupported(error.description)
        }
        return [
            .leSetAdvertisingParameters(
                intervalMin: advertising.intervalMin, intervalMax: advertising.intervalMax, type: advertising.kind, ownAddressType: .random),
            .leSetAdvertisingData(advertising.data.bytes),
            .leSetScanResponseData(advertising.scanResponse.bytes),
            .leSetAdvertisingEnable(true),
        ]
    }

    /// Refuses extended advertising the controller could never take, before anything is sent:
    /// an interval outside 20 ms…10,485 s or a scan response on a set that is not scannable.
    package static func check(_ advertising: ExtendedAdvertising) throws(HCIError) {
        guard (32...0xFF_FFFF).contains(advertising.intervalMin), (32...0xFF_FFFF).contains(advertising.intervalMax),
            advertising.intervalMin <= advertising.intervalMax
        else { throw .unsupported("the advertising interval must lie within 20 ms…10,485 s, minimum ≤ maximum") }
        if advertising.kind != .scannable, !advertising.scanResponse.structures.isEmpty {
            throw .unsupported("only a scannable extended advertisement has a scan response")
        }
    }

    /// The commands that start extended advertising from `address` (after what was on air is
    /// stopped): the set's random address, its parameters, the data and scan response in
    /// fragments, enable. Throws ``HCIError/unsupported(_:)`` when either is longer than
    /// `maximumDataLength` (the controller's LE Read Maximum Advertising Data Length).
    package static func startCommands(
        _ advertising: ExtendedAdvertising, address: BluetoothAddress, maximumDataLength: Int
    ) throws(HCIError) -> [HCICommand] {
        for (field, bytes) in [("advertising data", advertising.data.bytes), ("scan response data", advertising.scanResponse.bytes)]
        where bytes.count > maximumDataLength {
            throw .unsupported("\(field) is \(bytes.count) octets; this controller advertises at most \(maximumDataLength)")
        }
        var commands: [HCICommand] = [
            .leSetAdvertisingSetRandomAddress(handle: advertisingSet, address: address),
            .leSetExtendedAdvertisingParameters(
                handle: advertisingSet, properties: advertising.kind.properties, intervalMin: advertising.intervalMin,
                intervalMax: advertising.intervalMax, ownAddressType: .random),
        ]
        commands += HCICommand.extendedDataFragments(advertising.data.bytes, handle: advertisingSet, scanResponse: false)
        if advertising.kind == .scannable {
            commands += HCICommand.extendedDataFragments(advertising.scanResponse.bytes, handle: advertisingSet, scanResponse: true)
        }
        commands.append(.leSetExtendedAdvertisingEnable(true, handle: advertisingSet))
        return commands
    }

    /// The commands that take `advertising` off air for good (an extended set is removed too).
    package static func stopCommands(_ advertising: HostAdvertising?) -> [HCICommand] {
        switch advertising {
        case .legacy?: [.leSetAdvertisingEnable(false)]
        case .extended?: [.leSetExtendedAdvertisingEnable(false, handle: advertisingSet), .leRemoveAdvertisingSet(handle: advertisingSet)]
        case nil: []
        }
    }

    /// The command that pauses (`enable` false) or resumes `advertising`, its set kept.
    package static func enableCommand(_ advertising: HostAdvertising, _ enable: Bool) -> HCICommand {
        switch advertising {
        case .legacy: .leSetAdvertisingEnable(enable)
        case .extended: .leSetExtendedAdvertisingEnable(enable, handle: advertisingSet)
        }
    }

    // MARK: Connections as peripheral

    /// Tells `continuation` of every connection a central makes from now on.
    package mutating func watch(_ continuation: AsyncStream<LEConnection>.Continuation, id: UInt64) {
        watchers[id] = continuation
    }

    /// Stops telling stream `id`.
    package mutating func stopWatching(_ id: UInt64) {
        watchers[id] = nil
    }

    /// A central connected: connectable advertising has stopped on its own, and every watcher
    /// gets the link.
    package mutating func accepted(_ connection: LEConnection) {
        current = nil
        for watcher in watchers.values { watcher.yield(connection) }
    }

    /// The host closed: every watcher's stream ends.
    package mutating func finishWatchers() {
        for watcher in watchers.values { watcher.finish() }
        watchers = [:]
    }
}
