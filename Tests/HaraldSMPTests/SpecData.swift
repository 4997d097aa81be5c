import HaraldCodec
import HaraldCore
import HaraldSMP

/// Sample data is written as the spec (and notes/smp.md §8) prints it: most significant octet
/// first. These turn it into the toolbox's typed values.
struct BadSampleData: Error {}

/// A 128-bit value printed most significant octet first.
func spec128(_ hex: String) throws -> Value128 {
    guard let value = Value128(bigEndianBytes: try Hex.decode(hex)) else { throw BadSampleData() }
    return value
}

/// A 256-bit value printed most significant octet first.
func spec256(_ hex: String) throws -> Value256 {
    guard let value = Value256(bigEndianBytes: try Hex.decode(hex)) else { throw BadSampleData() }
    return value
}

/// A 128-bit key printed most significant octet first.
func specKey(_ hex: String) throws -> SecretKey128 {
    guard let key = SecretKey128(littleEndianBytes: try Hex.decode(hex).reversed()) else { throw BadSampleData() }
    return key
}

/// A DHKey printed most significant octet first.
func specDHKey(_ hex: String) throws -> DHKey {
    guard let key = DHKey(bigEndianBytes: try Hex.decode(hex)) else { throw BadSampleData() }
    return key
}

/// An address printed most significant octet first, with its kind.
func specAddress(_ hex: String, _ kind: BluetoothAddress.Kind) throws -> BluetoothAddress {
    guard let address = BluetoothAddress(bytes: try Hex.decode(hex), kind: kind) else { throw BadSampleData() }
    return address
}

/// The P-256 sample data of notes/smp.md §8.12 (Core spec sample data, P-256 data set 1).
enum P256Sample {
    static let privateA = "3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd"
    static let privateB = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    static let publicAx = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    static let publicAy = "dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b"
    static let publicBx = "1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190"
    static let publicBy = "4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a"
    static let dhKey = "ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698"
}
