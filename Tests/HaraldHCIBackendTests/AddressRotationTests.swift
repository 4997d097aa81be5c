import Foundation
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHCI
@testable import HaraldHCIBackend
import HaraldSMP
import HaraldTestSupport
import Testing

/// A controller that keeps the spec's rule for LE Set Random Address: Command Disallowed while
/// legacy advertising, scanning or initiating is enabled (Core spec Vol 4 Part E §7.8.4), and for
/// an advertising set's address while that set is enabled (§7.8.52).
final class AddressRulesController: Sendable {
    struct State {
        var scanning = false
        var legacyAdvertising = false
        var extendedAdvertising = false
        var initiating = false
        var refusals = 0
    }

    let fake: FakeController
    let state = Locked(State())

    init(leFeatures: UInt64 = 0) {
        fake = FakeController(leFeatures: leFeatures)
        let (fake, state) = (fake, state)
        fake.answer { fake, command in
            let parameters = command.parameters
            let disallowed = [FakeController.complete(command.opcode, [HCIStatus.commandDisallowed.rawValue])]
            switch command.opcode {
            case .leSetScanEnable, .leSetExtendedScanEnable:
                state.withLock { $0.scanning = parameters.first == 1 }
            case .leSetAdvertisingEnable:
                state.withLock { $0.legacyAdvertising = parameters.first == 1 }
            case .leSetExtendedAdvertisingEnable:
                state.withLock { $0.extendedAdvertising = parameters.first == 1 }
            case .leCreateConnection, .leExtendedCreateConnection:
                state.withLock { $0.initiating = true }
            case .leSetRandomAddress:
                let busy = state.withLock { state in
                    let busy = state.scanning || state.legacyAdvertising || state.initiating
                    if busy { state.refusals += 1 }
                    return busy
                }
                if busy { return disallowed }
            case .leSetAdvertisingSetRandomAddress:
                let busy = state.withLock { state in
                    if state.extendedAdvertising { state.refusals += 1 }
                    return state.extendedAdvertising
                }
                if busy { return disallowed }
            default:
                break
            }
            return fake.standardAnswer(command)
        }
    }

    /// Addresses the host set with LE Set Random Address, in order (refused ones included).
    var addressesSet: [BluetoothAddress] {
        fake.sentCommands.filter { $0.opcode == .leSetRandomAddress }.compactMap { BluetoothAddress(bytes: $0.parameters.reversed(), kind: .random) }
    }

    /// The opcodes sent from the `index`-th command on.
    func opcodes(from index: Int) -> [HCIOpcode] { fake.sentCommands.dropFirst(index).map(\.opcode) }
}

@Suite("Our resolvable private address rotates")
struct AddressRotationTests {
    static let irk = IdentityResolvingKey(key: SecretKey128(littleEndianBytes: (0..<16).map { UInt8(0x40 + $0) })!)
    static let interval = PrivateAddressRotation.defaultInterval
    static let peer = BluetoothAddress("C0:00:00:00:00:42", kind: .random)!

    static func host(_ controller: AddressRulesController, clock: ManualClock) async throws -> HCIHost {
        var configuration = HCIHost.Configuration()
        configuration.privateAddress = PrivateAddressRotation { irk.resolvablePrivateAddress() }
        let host = HCIHost(transport: controller.fake, clock: clock, configuration: configuration)
        try await host.start()
        return host
    }

    /// Waits (bounded) until the host's address is no longer `address`.
    static func addressChange(of host: HCIHost, from address: BluetoothAddress) async throws -> BluetoothAddress {
        try await withHangGuard(seconds: 60) {
            while true {
                if let now = await host.currentRandomAddress, now != address { return now }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Waits (bounded) until `condition` holds: what a fake controller records is only settled a
    /// moment after the host sent it.
    static func eventually(_ condition: @escaping @Sendable () async -> Bool) async throws {
        try await withHangGuard(seconds: 60) {
            while await !condition() { try await Task.sleep(for: .milliseconds(1)) }
        }
    }

    @Test func theDefaultIntervalIsTheSpecsFifteenMinutes() {
        #expect(PrivateAddressRotation.defaultInterval == .seconds(900))
        #expect(PrivateAddressRotation { Self.peer }.interval == .seconds(900))
    }

    @Test func afterTheIntervalTheAddressIsANewOneOfOurIRK() async throws {
        let controller = AddressRulesController()
        let clock = ManualClock()
        let host = try await Self.host(controller, clock: clock)
        let first = try #require(await host.currentRandomAddress)
        #expect(first.isResolvablePrivate && Self.irk.resolves(first))
        #expect(controller.addressesSet == [first])

        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: Self.interval - .seconds(1))
        await Task.yield()
        #expect(await host.currentRandomAddress == first, "not before the interval")
        clock.advance(by: .seconds(1))
        let second = try await Self.addressChange(of: host, from: first)
        #expect(second.isResolvablePrivate && Self.irk.resolves(second))
        #expect(controller.addressesSet == [first, second])

        // And again, every interval.
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: Self.interval)
        let third = try await Self.addressChange(of: host, from: second)
        #expect(Self.irk.resolves(third) && third != first)
        #expect(controller.state.withLock { $0.refusals } == 0)
        await host.close()
    }

    @Test func theIntervalIsConfigurable() async throws {
        let controller = AddressRulesController()
        let clock = ManualClock()
        var configuration = HCIHost.Configuration()
        configuration.privateAddress = PrivateAddressRotation(interval: .seconds(60)) { Self.irk.resolvablePrivateAddress() }
        let host = HCIHost(transport: controller.fake, clock: clock, configuration: configuration)
        try await host.start()
        let first = try #require(await host.currentRandomAddress)
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(60))
        #expect(Self.irk.resolves(try await Self.addressChange(of: host, from: first)))
        await host.close()
    }

    @Test func whileScanningTheScanPausesForTheChangeAndGoesOn() async throws {
        let controller = AddressRulesController()
        let clock = ManualClock()
        let host = try await Self.host(controller, clock: clock)
        let first = try #require(await host.currentRandomAddress)
        let scan = try await host.scan(ScanOptions(active: true, filterDuplicates: true))
        await clock.waitForSleepers(atLeast: 1)
        let before = controller.fake.sentCommands.count
        clock.advance(by: Self.interval)
        let second = try await Self.addressChange(of: host, from: first)
        await controller.fake.waitForCommand(.leSetScanEnable, count: 3)
        #expect(controller.opcodes(from: before) == [.leSetScanEnable, .leSetRandomAddress, .leSetScanEnable])
        let enables = controller.fake.sentCommands.filter { $0.opcode == .leSetScanEnable }.map(\.parameters)
        #expect(enables.suffix(2) == [[0, 0], [1, 1]], "stopped, then on again with duplicate filtering as before")
        try await Self.eventually { controller.state.withLock { $0.scanning } }
        #expect(controller.state.withLock { $0.refusals } == 0)
        #expect(Self.irk.resolves(second))
        _ = scan
        await host.close()
    }

    @Test func whileAdvertisingLegacyTheAdvertisingPausesForTheChangeAndGoesOn() async throws {
        let controller = AddressRulesController()
        let clock = ManualClock()
        let host = try await Self.host(controller, clock: clock)
        let first = try #require(await host.currentRandomAddress)
        try await host.startAdvertising(LegacyAdvertising(data: AdvertisingData(parsing: [0x02, 0x01, 0x06] as [UInt8])))
        await clock.waitForSleepers(atLeast: 1)
        let before = controller.fake.sentCommands.count
        clock.advance(by: Self.interval)
        _ = try await Self.addressChange(of: host, from: first)
        await controller.fake.waitForCommand(.leSetAdvertisingEnable, count: 3)
        #expect(controller.opcodes(from: before) == [.leSetAdvertisingEnable, .leSetRandomAddress, .leSetAdvertisingEnable])
        try await Self.eventually { controller.state.withLock { $0.legacyAdvertising } }
        #expect(controller.state.withLock { $0.refusals } == 0)
        #expect(await host.isAdvertising)
        await host.close()
    }

    @Test func whileAdvertisingExtendedTheSetGetsTheNewAddress() async throws {
        let controller = AddressRulesController(leFeatures: 1 << 12)  // LE Extended Advertising
        let clock = ManualClock()
        let host = try await Self.host(controller, clock: clock)
        let first = try #require(await host.currentRandomAddress)
        try await host.startAdvertising(ExtendedAdvertising(data: AdvertisingData(parsing: [0x02, 0x01, 0x06] as [UInt8])))
        await clock.waitForSleepers(atLeast: 1)
        let before = controller.fake.sentCommands.count
        clock.advance(by: Self.interval)
        let second = try await Self.addressChange(of: host, from: first)
        await controller.fake.waitForCommand(.leSetExtendedAdvertisingEnable, count: 3)
        #expect(
            controller.opcodes(from: before) == [
                .leSetExtendedAdvertisingEnable, .leSetRandomAddress, .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingEnable,
            ])
        let setAddress = controller.fake.sentCommands.last { $0.opcode == .leSetAdvertisingSetRandomAddress }
        #expect(setAddress?.parameters == [0] + second.littleEndianBytes)
        try await Self.eventually { controller.state.withLock { $0.extendedAdvertising } }
        #expect(controller.state.withLock { $0.refusals } == 0)
        await host.close()
    }

    @Test func aConnectionAttemptDefersTheChangeAndTheLinkKeepsItsAddress() async throws {
        let controller = AddressRulesController()
        let clock = ManualClock()
        let host = try await Self.host(controller, clock: clock)
        let first = try #require(await host.currentRandomAddress)
        let attempt = Task { try await host.connect(to: Self.peer, timeout: nil) }
        await controller.fake.waitForCommand(.leCreateConnection)
        await #expect(throws: HCIError.self) { try await host.changeRandomAddress(to: Self.irk.resolvablePrivateAddress()) }

        // The timer fires while the attempt runs: no change, another try after the retry delay.
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: Self.interval)
        await clock.waitForSleepers(atLeast: 1)
        #expect(await host.currentRandomAddress == first)
        #expect(controller.state.withLock { $0.refusals } == 0, "never sent while initiating")

        controller.state.withLock { $0.initiating = false }
        controller.fake.inject(FakeController.connectionComplete(handle: 0x0040, peer: Self.peer))
        let link = try await attempt.value
        #expect(link.localAddress == first)

        clock.advance(by: PrivateAddressRotation.defaultRetryDelay)
        let second = try await Self.addressChange(of: host, from: first)
        #expect(Self.irk.resolves(second))
        #expect(link.localAddress == first, "a link keeps the address it was made from")
        await host.close()
    }

    @Test func withoutPrivacyTheAddressNeverChanges() async throws {
        let controller = AddressRulesController()
        let clock = ManualClock()
        let host = HCIHost(transport: controller.fake, clock: clock)
        try await host.start()
        let first = try #require(await host.currentRandomAddress)
        #expect(first.isStaticRandom)
        clock.advance(by: Self.interval * 4)
        await Task.yield()
        #expect(await host.currentRandomAddress == first)
        #expect(controller.addressesSet == [first])
        await host.close()
    }

    // MARK: The backends

    @Test func theCentralBackendRotatesAnAddressOfTheStoresIRK() async throws {
        let bonds = InMemoryBondStore()
        let controller = AddressRulesController()
        let clock = ManualClock()
        let backend = try await HCICentralBackend.open(
            transport: controller.fake, clock: clock, security: HCISecurityConfiguration(bonds: bonds), privateAddress: true)
        let identity = try #require(await bonds.localIdentity())
        let first = try #require(await backend.host.currentRandomAddress)
        #expect(identity.identityResolvingKey.resolves(first))
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: Self.interval)
        let second = try await Self.addressChange(of: backend.host, from: first)
        #expect(identity.identityResolvingKey.resolves(second))
        #expect(second != identity.address)
        await backend.close()
    }

    @Test func thePeripheralAdvertisesFromRotatingAddressesOfTheStoresIRK() async throws {
        let bonds = InMemoryBondStore()
        let controller = AddressRulesController()
        let clock = ManualClock()
        let peripheral = try await HCIPeripheral.open(
            transport: controller.fake, services: [], security: SecurityConfiguration(bonds: bonds), privateAddress: true,
            privateAddressInterval: .seconds(120), clock: clock)
        try await peripheral.advertise(LegacyAdvertising(data: AdvertisingData(parsing: [0x02, 0x01, 0x06] as [UInt8])))
        let identity = try #require(await bonds.localIdentity())
        let first = try #require(await peripheral.host.currentRandomAddress)
        #expect(first.isResolvablePrivate && identity.identityResolvingKey.resolves(first))
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(120))
        let second = try await Self.addressChange(of: peripheral.host, from: first)
        #expect(identity.identityResolvingKey.resolves(second))
        await controller.fake.waitForCommand(.leSetAdvertisingEnable, count: 3)
        try await Self.eventually { controller.state.withLock { $0.legacyAdvertising } }
        #expect(controller.state.withLock { $0.refusals } == 0)
        await peripheral.close()
    }

    @Test func withoutPrivacyThePeripheralKeepsItsIdentityAddress() async throws {
        let bonds = InMemoryBondStore()
        let controller = AddressRulesController()
        let peripheral = try await HCIPeripheral.open(
            transport: controller.fake, services: [], security: SecurityConfiguration(bonds: bonds), clock: ManualClock())
        let identity = try #require(await bonds.localIdentity())
        #expect(await peripheral.host.currentRandomAddress == identity.address)
        await peripheral.close()
    }
}
