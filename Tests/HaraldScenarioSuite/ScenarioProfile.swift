import Harald
import HaraldCodec

/// The GATT layout every scenario peer serves, on every backend: one 128-bit service whose
/// characteristics cover each kind of operation. The peer advertises its name ``name`` and the
/// service UUID.
public enum ScenarioProfile {
    /// The advertised complete local name.
    public static let name = "Scenario"
    public static let service: BluetoothUUID = "5CE40001-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Read and notify; starts as ``statusInitial``.
    public static let status: BluetoothUUID = "5CE40002-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Read and write (a little-endian 16-bit number); starts as ``settingInitial``.
    public static let setting: BluetoothUUID = "5CE40003-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Write without response.
    public static let stream: BluetoothUUID = "5CE40004-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Write: every accepted write is answered by a notification on ``response`` carrying
    /// ``answer(to:)``; a command starting with ``refusedCommand`` is refused with ATT error
    /// ``refusalCode`` (an application error).
    public static let command: BluetoothUUID = "5CE40005-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Notify: the answers to ``command``.
    public static let response: BluetoothUUID = "5CE40006-9F3B-4D4E-8A5C-6B1D2E3F4A5B"

    public static let statusInitial: [UInt8] = [0x2A]
    public static let settingInitial: [UInt8] = [0x01, 0x02]
    public static let refusedCommand: UInt8 = 0xFF
    public static let refusalCode: UInt8 = 0x80

    /// The answer notified on ``response`` to a command.
    public static func answer(to command: [UInt8]) -> [UInt8] { [0x80] + command }

    /// Every characteristic of the service.
    public static let characteristics: [BluetoothUUID] = [status, setting, stream, command, response]

    /// The PSM on which the peer serves an L2CAP credit-based channel that sends every SDU back.
    public static let echoPSM: UInt16 = 0x0080
    /// A PSM the peer does not serve.
    public static let unservedPSM: UInt16 = 0x008F
}

/// The scenario profile as the typed specs an app would declare.
public enum ScenarioSpecs {
    public static let service = ServiceSpec(ScenarioProfile.service, characteristics: ScenarioProfile.characteristics)
    public static let status = Characteristic<[UInt8], ReadNotify>(ScenarioProfile.status, service: ScenarioProfile.service)
    public static let setting = Characteristic<UInt16, ReadWrite>(ScenarioProfile.setting, service: ScenarioProfile.service)
    public static let stream = Characteristic<[UInt8], WriteWithoutResponse>(ScenarioProfile.stream, service: ScenarioProfile.service)
    public static let command = Characteristic<[UInt8], Write>(ScenarioProfile.command, service: ScenarioProfile.service)
    public static let response = Characteristic<[UInt8], Notify>(ScenarioProfile.response, service: ScenarioProfile.service)
}
