/// Every target the fuzzer drives, one libFuzzer run per target (`scripts/fuzz --target NAME`):
/// the codec, ATT PDUs, the GATT client against a scripted server and the GATT server fed
/// requests, SMP PDUs, the SMP responder and initiator fed PDU sequences and paired through a
/// meddler, advertising data and beacons, the advertisement decoders (BTHome), the HCI parsers, L2CAP reassembly and signaling, the
/// credit-based channel engine, the HCI
/// host fed event sequences, the Open GoPro packetizer and messages, one target per characteristic
/// of the standard registry, then the Mi Band kit's messages.
///
/// Each target keeps its seed corpus in `Fuzz/corpus/NAME/`, replayed by `swift test`
/// (HaraldFuzzTests) so an input once found stays fixed.
public enum FuzzTargets {
    public static let all: [FuzzTarget] =
        codecTargets + attTargets + serverTargets + gattServerTargets + smpTargets + smpSequenceTargets + smpMeddlerTargets + advertisingTargets
        + advertisementDecoderTargets + hciTargets + l2capChannelTargets + hciHostTargets + goProTargets + profileTargets + miBandTargets

    /// The target called `name`, if there is one.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
