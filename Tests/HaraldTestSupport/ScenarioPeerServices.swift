import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldScenarioSuite

/// The GATT service of ``ScenarioProfile`` as a peer serves it, answering from a
/// ``ScenarioPeerState``: reads and writes wait at the state's gate, writes without response are
/// recorded, the command characteristic refuses ``ScenarioProfile/refusedCommand`` and otherwise
/// has its answer notified on the response characteristic by `notifyAnswer`.
public enum ScenarioPeerServices {
    package static func definitions(
        state: ScenarioPeerState, notifyAnswer: @escaping @Sendable (_ answer: [UInt8], _ to: GATTConnectionID) async -> Void
    ) -> [GATTServiceDefinition] {
        func stored(_ uuid: BluetoothUUID, _ properties: CharacteristicProperties, writable: Bool = false) -> GATTCharacteristicDefinition {
            GATTCharacteristicDefinition(
                uuid: uuid, properties: properties,
                onRead: { @Sendable _ in
                    await state.gate()
                    return state.value(of: uuid)
                },
                onWrite: writable
                    ? { @Sendable _, value in
                        await state.gate()
                        state.store(value, for: uuid)
                    } : nil)
        }
        return [
            GATTServiceDefinition(
                uuid: ScenarioProfile.service,
                characteristics: [
                    stored(ScenarioProfile.status, [.read, .notify]),
                    stored(ScenarioProfile.setting, [.read, .write], writable: true),
                    GATTCharacteristicDefinition(
                        uuid: ScenarioProfile.stream, properties: [.writeWithoutResponse],
                        onWrite: { _, value in
                            state.receiveWithoutResponse(value)
                        }),
                    GATTCharacteristicDefinition(
                        uuid: ScenarioProfile.command, properties: [.write],
                        onWrite: { context, value throws(ATTErrorCode) in
                            await state.gate()
                            if value.first == ScenarioProfile.refusedCommand { throw ATTErrorCode(ScenarioProfile.refusalCode) }
                            await notifyAnswer(ScenarioProfile.answer(to: value), context.connection)
                        }),
                    GATTCharacteristicDefinition(uuid: ScenarioProfile.response, properties: [.notify]),
                ])
        ]
    }

    /// Advertising data naming the peer and its service: flags, the complete 128-bit service
    /// list and the complete local name (31 bytes, a legacy report's limit).
    public static var advertisingData: AdvertisingData {
        var uuid: [UInt8] = []
        for part in [ScenarioProfile.service.low, ScenarioProfile.service.high] {
            uuid += (0..<8).map { UInt8(truncatingIfNeeded: part >> (8 * $0)) }
        }
        return AdvertisingData(structures: [
            .init(type: .flags, data: [0x06]),
            .init(type: .completeList128BitServiceUUIDs, data: uuid),
            .init(type: .completeLocalName, data: Array(ScenarioProfile.name.utf8)),
        ])
    }
}
