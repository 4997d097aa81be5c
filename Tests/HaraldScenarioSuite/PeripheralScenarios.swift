import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles

// The peripheral-side scenarios, in the order of `PeripheralScenario`'s cases.
extension PeripheralScenario {
    typealias Device = PeripheralScenarioDevice

    static func advertisement(_ context: PeripheralScenarioContext) async throws {
        let harness = context.harness
        let found = try await harness.central.scan(ScanRequest(namePrefix: harness.name)).first(timeout: harness.timeout)
        try checkEqual(found.localName, harness.name, "advertised name")
        try check(found.serviceUUIDs.contains(Device.service), "the service UUID is advertised: \(found.serviceUUIDs)")
        try check(found.isConnectable, "the device advertises as connectable")
    }

    static func discovery(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let tree = try await connection.discoverAll()
        let characteristics =
            try tree.first { $0.service.uuid == Device.service }.map(\.characteristics)
            ?? { throw ScenarioFailure("service \(Device.service) not discovered in \(tree.map(\.service.uuid))") }()
        let byUUID = Dictionary(characteristics.map { ($0.uuid, $0) }) { first, _ in first }
        try checkEqual(Set(byUUID.keys), Set(Device.layout.map(\.0)), "characteristics")
        for (uuid, properties) in Device.layout {
            try checkEqual(byUUID[uuid]?.properties, properties, "properties of \(uuid)")
        }
        await connection.disconnect()
    }

    static func descriptors(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let level = try await connection.characteristic(Device.level.uuid, service: Device.service)
        let descriptors = try await connection.discoverDescriptors(of: level)
        let byUUID = Dictionary(descriptors.map { ($0.uuid, $0) }) { first, _ in first }
        try checkEqual(
            Set(byUUID.keys), [BluetoothUUID(0x2901), BluetoothUUID(0x2902), BluetoothUUID(0x2904)], "descriptors of the level")
        let description = try await connection.readDescriptor(try byUUID[BluetoothUUID(0x2901)] ?? { throw ScenarioFailure("no 0x2901") }())
        try checkEqual(String(decoding: description, as: UTF8.self), Device.levelDescription, "User Description")
        let format = try await connection.readDescriptor(try byUUID[BluetoothUUID(0x2904)] ?? { throw ScenarioFailure("no 0x2904") }())
        try checkEqual(try CharacteristicPresentationFormat(decoding: format), Device.levelFormat, "Presentation Format")
        await connection.disconnect()
    }

    static func readHandler(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        try checkEqual(try await connection.read(Device.counter), 1, "first read")
        try checkEqual(try await connection.read(Device.counter), 2, "second read")
        try await context.events.wait(
            for: .read(central, characteristic: Device.counter.uuid), within: context.harness.timeout, sleep: context.harness.sleep)
        await connection.disconnect()
        try await context.events.wait(for: .disconnected(central), within: context.harness.timeout, sleep: context.harness.sleep)
        try checkEqual(context.events.all.filter { $0 == .read(central, characteristic: Device.counter.uuid) }.count, 2, "read events")
    }

    static func write(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        try checkEqual(try await connection.read(Device.setting), Device.settingInitial, "stored value before the write")
        try await connection.write(0x0809, to: Device.setting)
        try checkEqual(context.device.record.settings, [0x0809], "values the handler took")
        try checkEqual(try await connection.read(Device.setting), UInt16(0x0809), "value read back")
        try await context.events.wait(
            for: .wrote(central, characteristic: Device.setting.uuid), within: context.harness.timeout, sleep: context.harness.sleep)
        await connection.disconnect()
    }

    static func refusedWrite(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let command = try await connection.characteristic(Device.command.uuid, service: Device.service)
        try await checkThrows("refused command", BluetoothError.attribute(Device.refusal, on: command.id)) {
            try await connection.write([Device.refusedCommand, 0x01], to: Device.command)
        }
        try await connection.write([0x01, 0x02], to: Device.command)
        try checkEqual(context.device.record.commands, [[0x01, 0x02]], "commands the handler accepted")
        await connection.disconnect()
    }

    static func undecodableWrite(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let setting = try await connection.characteristic(Device.setting.uuid, service: Device.service)
        try await checkThrows("three bytes for a UInt16", BluetoothError.attribute(.valueNotAllowed, on: setting.id)) {
            try await connection.writeRaw([1, 2, 3], to: setting, kind: .withResponse)
        }
        try checkEqual(context.device.record.settings, [], "values the handler took")
        try checkEqual(try await connection.read(Device.setting), Device.settingInitial, "stored value after the refusal")
        await connection.disconnect()
    }

    static func longRead(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        try checkEqual(try await connection.read(Device.blob), Device.blobValue, "a 300-byte value")
        await connection.disconnect()
        try await context.events.wait(for: .disconnected(central), within: context.harness.timeout, sleep: context.harness.sleep)
        try checkEqual(context.events.all.filter { $0 == .read(central, characteristic: Device.blob.uuid) }.count, 1, "read events of one long read")
    }

    static func setValue(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        try checkEqual(try await connection.read(Device.level), Device.levelInitial, "before")
        try await context.served.setValue(Device.level, [0x63, 0x64])
        try checkEqual(try await connection.read(Device.level), [0x63, 0x64], "after setValue")
        await connection.disconnect()
    }

    static func writesWithoutResponse(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let chunks: [[UInt8]] = (0..<20).map { [UInt8($0), 0xEE] }
        for chunk in chunks { try await connection.writeWithoutResponse(chunk, to: Device.stream) }
        // A read after them returns once the server has handled everything before it on the bearer.
        _ = try await connection.read(Device.counter)
        var waited = Duration.zero
        while context.device.record.stream.count < chunks.count, waited < context.harness.timeout {
            await context.harness.sleep(.milliseconds(20))
            waited += .milliseconds(20)
        }
        try checkEqual(context.device.record.stream, chunks, "writes the handler took")
        await connection.disconnect()
    }

    static func notifications(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        let subscription = try await connection.subscribe(Device.level, buffering: .oldest(4096))
        try await context.events.wait(
            for: .subscriptionChanged(central, characteristic: Device.level.uuid, notifying: true), within: context.harness.timeout,
            sleep: context.harness.sleep)
        let sent: [[UInt8]] = (0..<20).map { [UInt8($0), 0x5A] }
        for value in sent {
            try checkEqual(try await context.served.notify(Device.level, value), 1, "centrals one notification reached")
        }
        let received = try await collect(sent.count, from: subscription, within: context.harness.timeout, sleep: context.harness.sleep)
        try checkEqual(received, sent, "notifications in order")
        await connection.disconnect()
    }

    static func notifyingNobody(_ context: PeripheralScenarioContext) async throws {
        try checkEqual(try await context.served.notify(Device.level, [1]), 0, "centrals reached with nobody connected")
        let connection = try await context.connect()
        _ = try await context.connectedCentral()
        try checkEqual(try await context.served.notify(Device.level, [2]), 0, "centrals reached with one connected but not subscribed")
        await connection.disconnect()
    }

    static func tooLongNotification(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        let subscription = try await connection.subscribe(Device.level, buffering: .oldest(16))
        try await context.events.wait(
            for: .subscriptionChanged(central, characteristic: Device.level.uuid, notifying: true), within: context.harness.timeout,
            sleep: context.harness.sleep)
        // Longer than ATT_MTU − 3 on any link (an ATT_MTU is at most 517 here).
        let long = [UInt8](repeating: 0x4C, count: 600)
        do {
            try await context.served.notify(Device.level, long, to: central)
            throw ScenarioFailure("a value longer than the link carries was notified to the central named")
        } catch BluetoothError.misuse {}
        try checkEqual(try await context.served.notify(Device.level, long), 0, "centrals a too-long notification to every subscriber reached")
        try checkEqual(await context.served.withheldNotifications(Device.level), 1, "notifications withheld for the link's ATT_MTU")
        try checkEqual(try await context.served.notify(Device.level, [0x01, 0x02]), 1, "centrals a short notification reached")
        let received = try await collect(1, from: subscription, within: context.harness.timeout, sleep: context.harness.sleep)
        try checkEqual(received, [[0x01, 0x02]], "what arrived: the short value, nothing cut before it")
        await connection.disconnect()
    }

    static func unsubscribe(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        let subscription = try await connection.subscribe(Device.level)
        try await context.events.wait(
            for: .subscriptionChanged(central, characteristic: Device.level.uuid, notifying: true), within: context.harness.timeout,
            sleep: context.harness.sleep)
        await connection.unsubscribe(subscription)
        try await context.events.wait(
            for: .subscriptionChanged(central, characteristic: Device.level.uuid, notifying: false), within: context.harness.timeout,
            sleep: context.harness.sleep)
        try checkEqual(try await context.served.notify(Device.level, [3]), 0, "centrals reached after the unsubscription")
        await connection.disconnect()
    }

    static func indication(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        let subscription = try await connection.subscribe(Device.alert)
        try await context.events.wait(
            for: .subscriptionChanged(central, characteristic: Device.alert.uuid, notifying: true), within: context.harness.timeout,
            sleep: context.harness.sleep)
        try await context.served.indicate(Device.alert, [0xA1, 0xA2], to: central, timeout: context.harness.timeout)
        let received = try await collect(1, from: subscription, within: context.harness.timeout, sleep: context.harness.sleep)
        try checkEqual(received, [[0xA1, 0xA2]], "the indicated value")
        await connection.disconnect()
    }

    static func connectionEvents(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let central = try await context.connectedCentral()
        try checkEqual(await context.served.centrals(), [central], "centrals while connected")
        await connection.disconnect()
        try await context.events.wait(for: .disconnected(central), within: context.harness.timeout, sleep: context.harness.sleep)
        try checkEqual(await context.served.centrals(), [], "centrals after the disconnection")
    }

    static func centralDisappears(_ context: PeripheralScenarioContext) async throws {
        let harness = context.harness
        let first = try await context.connect()
        let gone = try await context.connectedCentral()
        let subscription = try await first.subscribe(Device.level, buffering: .oldest(4096))
        try await context.events.wait(
            for: .subscriptionChanged(gone, characteristic: Device.level.uuid, notifying: true), within: harness.timeout, sleep: harness.sleep)
        // The device notifies without pause while the central takes five and leaves.
        let reached = Locked<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var sequence: UInt8 = 0
                while !Task.isCancelled {
                    sequence &+= 1
                    let count = try await context.served.notify(Device.level, [sequence])
                    reached.withLock { $0.append(count) }
                    if count == 0 { return }
                    await harness.sleep(.milliseconds(5))
                }
            }
            _ = try await collect(5, from: subscription, within: harness.timeout, sleep: harness.sleep)
            await first.disconnect()
            try await context.events.wait(for: .disconnected(gone), within: harness.timeout, sleep: harness.sleep)
            try await group.next()
        }
        try check(reached.withLock { $0.last } == 0, "the device's notify ends up reaching nobody: \(reached.withLock { $0.suffix(3) })")
        // The device still serves: the next central is notified.
        let second = try await context.connect()
        let next = try await context.events.first(within: harness.timeout, sleep: harness.sleep) {
            if case .connected(let central) = $0 { return central != gone } else { return false }
        }
        guard case .connected(let newcomer) = next else { throw ScenarioFailure("no second connection") }
        let again = try await second.subscribe(Device.level)
        try await context.events.wait(
            for: .subscriptionChanged(newcomer, characteristic: Device.level.uuid, notifying: true), within: harness.timeout,
            sleep: harness.sleep)
        try checkEqual(try await context.served.notify(Device.level, [0x77]), 1, "centrals reached after the first one left")
        try checkEqual(try await collect(1, from: again, within: harness.timeout, sleep: harness.sleep), [[0x77]], "the newcomer's notification")
        await second.disconnect()
    }

    static func authorization(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let guarded = try await connection.characteristic(Device.guarded.uuid, service: Device.service)
        try await checkThrows("read before the rule allows", BluetoothError.attribute(.insufficientAuthorization, on: guarded.id)) {
            try await connection.read(Device.guarded)
        }
        context.device.record.allow()
        try checkEqual(try await connection.read(Device.guarded), Device.guardedValue, "read once the rule allows")
        await connection.disconnect()
    }

    static func databaseHash(_ context: PeripheralScenarioContext) async throws {
        let connection = try await context.connect()
        let hash = try await connection.characteristic(BluetoothUUID(0x2B2A), service: BluetoothUUID(0x1801))
        let first = try await connection.readRaw(hash)
        try checkEqual(first.count, 16, "Database Hash length")
        try checkEqual(try await connection.readRaw(hash), first, "the hash read again")
        await connection.disconnect()
    }
}
