import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

/// The fake holds the backend to CoreBluetooth's rules; these tests show that it notices a
/// broken rule (so a suite under ``CoreBluetoothRules`` passing means the backend kept them).
@Suite("The CoreBluetooth fake: CoreBluetooth's rules")
struct FakeRulesTests {
    @Test func aCommandBeforePowerOnIsRecordedAsMisuseAndIgnored() async {
        let central = FakeCentral()
        central.queue.sync { central.scanForPeripherals(withServices: nil, options: nil) }
        #expect(central.misuse == [.notPoweredOn("scanForPeripherals")])
        #expect(!central.isScanning)
    }

    @Test func aCallOffTheQueueIsRecordedAsMisuse() async {
        let central = FakeCentral()
        central.setRadio(.poweredOn)
        central.stopScan()
        #expect(central.misuse == [.offQueue("stopScan")])
    }

    @Test func aRequestToAPeripheralThatIsNotConnectedIsRecordedAsMisuseAndIgnored() async {
        let central = FakeCentral()
        central.setRadio(.poweredOn)
        let peripheral = central.makePeripheral(name: nil, gatt: FakeWorld.profileGATT)
        central.queue.sync { peripheral.discoverServices(nil) }
        #expect(central.misuse == [.notConnected("discoverServices(nil)")])
        #expect(peripheral.received.isEmpty)
    }
}

@Suite("CoreBluetooth backend: CoreBluetooth's queue, power and first use", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct CoreBluetoothQueueTests {
    let timeout = Duration.seconds(10)

    enum FirstUse: String, CaseIterable, Sendable {
        case radioStates, scan, connect, restorations, retrieveConnectedPeripherals
    }

    @Test func creatingTheBackendDoesNotMakeTheCentral() async {
        let world = FakeWorld.make()
        await world.settle()
        #expect(world.central.madeCount == 0)
        _ = world.backend.authorization
        _ = world.backend.authorizationUpdates()
        await world.settle()
        #expect(world.central.madeCount == 0, "reading the authorization never asks the user")
    }

    @Test(arguments: FirstUse.allCases)
    func theCentralIsMadeOnFirstUse(_ use: FirstUse) async throws {
        let world = FakeWorld.make()
        let backend = world.backend
        switch use {
        case .radioStates: _ = backend.radioStates()
        case .scan: _ = backend.scan(ScanRequest())
        case .connect: _ = try await backend.connect(to: world.identifier, timeout: timeout)
        case .restorations: _ = backend.restorations()
        case .retrieveConnectedPeripherals: _ = try await backend.retrieveConnectedPeripherals(withServices: [ScenarioProfile.service])
        }
        await world.settle()
        #expect(world.central.madeCount == 1)
        _ = backend.radioStates()
        _ = backend.scan(ScanRequest())
        await world.settle()
        #expect(world.central.madeCount == 1, "made once")
    }

    @Test func nothingIsAskedOfCoreBluetoothBeforePowerOnThenEverythingIs() async throws {
        let world = FakeWorld.make(poweredOn: false)
        let scan = await world.scan()
        let connect = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        let retrieval = Task { try await world.backend.retrieveConnectedPeripherals(withServices: [ScenarioProfile.service]) }
        await until { world.backend.pendingOperationCount == 2 }
        await world.settle()
        #expect(world.central.calls.isEmpty)
        world.central.setRadio(.poweredOn)
        _ = try await connect.value
        #expect(try await retrieval.value == [])
        #expect(world.central.isScanning)
        _ = scan
    }

    @Test func aBusyConnectionCallsCoreBluetoothOnlyOnItsQueue() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        let updates = await profile.connection.valueUpdates(for: status, buffering: .oldest(1024))
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        let peripheral = world.peripheral
        DispatchQueue.global().async {
            for index in 0..<100 { peripheral.notify([UInt8(index)], on: ScenarioProfile.status) }
        }
        let connection = profile.connection
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { _ = try await connection.read(profile[ScenarioProfile.setting], timeout: .seconds(10)) }
                group.addTask {
                    try await connection.write([UInt8(index)], to: profile[ScenarioProfile.stream], kind: .withoutResponse, timeout: .seconds(10))
                }
                group.addTask { _ = await connection.mtu() }
            }
            try await group.waitForAll()
        }
        var count = 0
        for await _ in updates {
            count += 1
            if count == 100 { break }
        }
        await world.settle()
        #expect(world.central.misuse.isEmpty)
    }
}
