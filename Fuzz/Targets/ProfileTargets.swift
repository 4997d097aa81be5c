import HaraldCodec
import HaraldProfiles

/// One row per characteristic of the standard registry (HaraldProfiles): decode, and for types
/// that encode, re-encode and decode again. A decoded value that cannot be encoded, or whose
/// encoding decodes to something else, is a bug and traps so libFuzzer reports the input.
let profileTargets: [FuzzTarget] = CharacteristicRegistry.standard.entries.map { entry in
    FuzzTarget("Profile.\(entry.typeName)") { bytes in
        touch { () throws(ByteDecodingError) in blackHole(try entry.describe(bytes)) }
        switch entry.roundTrip(bytes) {
        case nil, .rejected, .stable:
            break
        case let .encodingFailed(error)?:
            fatalError("\(entry.typeName): \(bytes.hexString) decodes but does not encode: \(error)")
        case let .changed(reencoded)?:
            fatalError("\(entry.typeName): \(bytes.hexString) re-encodes as \(reencoded.hexString), which decodes differently")
        }
    }
}
