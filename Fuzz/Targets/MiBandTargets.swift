import HaraldCodec
import HaraldMiBand

/// The Mi Band kit's messages (HaraldMiBand/Protocol). Every one except the auth reply has a
/// single wire form, so decoded values must re-encode to their input; the auth reply keeps only
/// the low nibble of a flagged command echo (`10 83 01` reads as command 3).
let miBandTargets: [FuzzTarget] = [
    .roundTripping(MiBandAuthCommand.self),
    .decoding(MiBandAuthReply.self),
    .roundTripping(MiBandBatteryInfo.self),
    .roundTripping(MiBandHeartRateCommand.self),
    .roundTripping(MiBandActivityFetchCommand.self),
    .roundTripping(MiBandActivityFetchReply.self),
    .roundTripping(MiBandActivityPacket.self),
    .roundTripping(MiBandTimestamp.self),
    .roundTripping(MiBandRealtimeSteps.self),
]
