import HaraldCodec
import HaraldCore
import HaraldTerminal
import Testing

@Suite("The GATT tree of harald dump")
struct GATTTreeTests {
    let battery = GATTTree.Service(
        uuid: BluetoothUUID(0x180F), handles: (8, 11),
        characteristics: [
            .init(
                uuid: BluetoothUUID(0x2A19), handle: 10, properties: ["read", "notify"], access: .readable([0x57]),
                descriptors: [.init(uuid: BluetoothUUID(0x2902), handle: 11)])
        ])
    let heartRate = GATTTree.Service(
        uuid: BluetoothUUID(0x180D), handles: (12, 20),
        characteristics: [
            .init(uuid: BluetoothUUID(0x2A37), handle: 14, properties: ["notify"], descriptors: [.init(uuid: BluetoothUUID(0x2902), handle: 15)]),
            .init(uuid: BluetoothUUID(0x2A38), handle: 17, properties: ["read"], access: .needsEncryption(.insufficientEncryption)),
        ])

    @Test func servicesCharacteristicsAndDescriptorsNestWithTheirSIGNames() {
        let lines = GATTTree.render(title: "C0:00:00:00:00:01", services: [battery, heartRate])
        #expect(
            lines == [
                "C0:00:00:00:00:01",
                "├─ 180F Battery  handles 8–11",
                "│  └─ 2A19 Battery Level  handle 10  [read, notify]  readable",
                "│     │  = 57 → level: 87",
                "│     └─ 2902 Client Characteristic Configuration  handle 11",
                "└─ 180D Heart Rate  handles 12–20",
                "   ├─ 2A37 Heart Rate Measurement  handle 14  [notify]",
                "   │  └─ 2902 Client Characteristic Configuration  handle 15",
                "   └─ 2A38 Body Sensor Location  handle 17  [read]  needs encryption (\(ATTErrorCode.insufficientEncryption))",
            ])
    }

    @Test func readErrorsAreSortedIntoWhatTheyRevealAboutAccess() {
        #expect(GATTTree.Access(readError: .insufficientAuthentication) == .needsEncryption(.insufficientAuthentication))
        #expect(GATTTree.Access(readError: .insufficientEncryption) == .needsEncryption(.insufficientEncryption))
        #expect(GATTTree.Access(readError: .insufficientAuthorization) == .needsAuthorization)
        #expect(GATTTree.Access(readError: .readNotPermitted) == .notReadable)
        #expect(GATTTree.Access(readError: .unlikelyError) == .failed(.unlikelyError))
    }

    @Test func withoutHandlesTheTreeLeavesThemOut() {
        let lines = GATTTree.render(
            title: "t", services: [.init(uuid: BluetoothUUID(0x180A), characteristics: [.init(uuid: BluetoothUUID(0x2A29), properties: ["read"])])])
        #expect(lines == ["t", "└─ 180A Device Information", "   └─ 2A29 Manufacturer Name String  [read]"])
    }
}
