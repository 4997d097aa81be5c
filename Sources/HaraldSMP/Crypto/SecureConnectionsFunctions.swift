import HaraldCore

/// IOcap, an input of `f6` (Core spec Vol 3 Part H §2.2.8): one side's AuthReq, OOB data flag
/// and IO Capability, as its Pairing Request or Response carried them.
public struct IOcap: Hashable, Sendable {
    /// The AuthReq octet.
    public var authReq: UInt8
    /// The OOB data flag octet.
    public var oobDataFlag: UInt8
    /// The IO Capability octet.
    public var ioCapability: UInt8

    /// The three octets `f6` takes: AuthReq, OOB data flag, IO capability.
    public init(authReq: UInt8, oobDataFlag: UInt8, ioCapability: UInt8) {
        self.authReq = authReq
        self.oobDataFlag = oobDataFlag
        self.ioCapability = ioCapability
    }

    /// The three octets as `f6` uses them: AuthReq most significant.
    var bigEndianBytes: [UInt8] { [authReq, oobDataFlag, ioCapability] }
}

extension SMPCrypto {
    /// The confirm value generation function `f4` (Core spec Vol 3 Part H §2.2.6):
    /// AES-CMAC keyed with `x` over `u || v || z`.
    ///
    /// `u` and `v` are public-key X coordinates, `x` a nonce, `z` 0 (Just Works, Numeric
    /// Comparison) or 0x80 | the passkey bit of the round (Passkey Entry).
    public static func f4(u: Value256, v: Value256, x: Value128, z: UInt8) -> Value128 {
        Value128(unchecked: cmac(key: x.bigEndianBytes, message: u.bigEndianBytes + v.bigEndianBytes + [z]))
    }

    /// The SALT of `f5`.
    static let f5Salt: [UInt8] = [
        0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38, 0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE,
    ]

    /// The keyID of `f5`: "btle" in ASCII.
    static let f5KeyID: [UInt8] = Array("btle".utf8)

    /// The key generation function `f5` (Core spec Vol 3 Part H §2.2.7): MacKey and LTK from
    /// the DHKey, both nonces and both devices' addresses.
    ///
    /// `a1` and `a2` are the addresses (with their kinds) used on the connection, the
    /// initiator's first when the initiator computes it, as in `f5(DHKey, Na, Nb, A, B)`.
    public static func f5(
        w: DHKey, n1: Value128, n2: Value128, a1: BluetoothAddress, a2: BluetoothAddress
    ) -> (macKey: SecretKey128, ltk: SecretKey128) {
        let t = cmac(key: f5Salt, message: w.bigEndianOctets)
        func key(counter: UInt8) -> SecretKey128 {
            let message =
                [counter] + f5KeyID + n1.bigEndianBytes + n2.bigEndianBytes
                + addressOctets(a1) + addressOctets(a2) + [0x01, 0x00]  // Length: 256 bits
            return SecretKey128(bigEndianOctets: cmac(key: t, message: message))
        }
        return (macKey: key(counter: 0), ltk: key(counter: 1))
    }

    /// The check value generation function `f6` (Core spec Vol 3 Part H §2.2.8): the DHKey
    /// Check value Ea or Eb.
    ///
    /// `w` is MacKey; `r` is zero for Just Works and Numeric Comparison, the passkey for Passkey
    /// Entry (`SecretKey128/init(passkey:)`) and the peer's OOB `r` for OOB.
    public static func f6(
        w: SecretKey128, n1: Value128, n2: Value128, r: SecretKey128, ioCap: IOcap,
        a1: BluetoothAddress, a2: BluetoothAddress
    ) -> Value128 {
        let message =
            n1.bigEndianBytes + n2.bigEndianBytes + r.bigEndianOctets + ioCap.bigEndianBytes
            + addressOctets(a1) + addressOctets(a2)
        return Value128(unchecked: cmac(key: w.bigEndianOctets, message: message))
    }

    /// The numeric comparison value generation function `g2` (Core spec Vol 3 Part H §2.2.9):
    /// the low 32 bits of AES-CMAC keyed with `x` over `u || v || y`. Show it with
    /// `NumericComparisonValue`.
    public static func g2(u: Value256, v: Value256, x: Value128, y: Value128) -> UInt32 {
        let mac = cmac(key: x.bigEndianBytes, message: u.bigEndianBytes + v.bigEndianBytes + y.bigEndianBytes)
        return mac[12..<16].reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// An address as `f5` and `f6` take it: 56 bits, the address type (0 public, 1 random) in
    /// the most significant octet, then the address most significant first.
    static func addressOctets(_ address: BluetoothAddress) -> [UInt8] {
        [address.kind.rawValue] + address.bytes
    }
}
