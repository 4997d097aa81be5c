/// What a bond, or a pairing that would make one, is worth: the peer's identity, the security
/// level a link encrypted with its keys gets, and the key size. Never any key.
///
/// Used to decide whether a new pairing may replace a stored bond (the guidance after
/// BLURtooth: a key never gives way to one of lower strength, or to an unauthenticated one, unless
/// the person agrees) and to ask the person through ``PairingAgent/confirmBondReplacement(existing:replacement:)``.
public struct BondStrength: Hashable, Sendable, CustomStringConvertible {
    /// The peer's identity address (public or static random) the bond is kept under.
    public var identityAddress: BluetoothAddress
    /// The LE Security Mode 1 level of a link encrypted with the bond's keys.
    public var level: SecurityLevel
    /// The encryption key size in octets (7…16).
    public var keySize: Int

    /// A bond's worth: its identity, level and key size in octets.
    public init(identityAddress: BluetoothAddress, level: SecurityLevel, keySize: Int) {
        self.identityAddress = identityAddress
        self.level = level
        self.keySize = keySize
    }

    /// Whether this is authenticated (MITM-protected): level 3 or 4.
    public var isAuthenticated: Bool { level >= .authenticated }

    /// Whether a bond of this strength may replace `existing` without asking: only an
    /// authenticated one that is at least as strong in level and in key size. An unauthenticated
    /// pairing never replaces a bond silently (Zephyr's `BT_SMP_ALLOW_UNAUTH_OVERWRITE`, off by
    /// default, is the same rule).
    public func mayReplaceWithoutAsking(_ existing: BondStrength) -> Bool {
        isAuthenticated && level >= existing.level && keySize >= existing.keySize
    }

    /// `authenticated (LE Secure Connections), 128-bit key, for 00:11:22:33:44:55`.
    public var description: String { "\(level), \(keySize * 8)-bit key, for \(identityAddress)" }
}

/// Why the keys of a pairing were refused and not stored (the pairing ended with Pairing Failed;
/// any bond stored before stays as it was). Carries addresses and levels, never a key.
public enum BondRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The peer distributed an identity the connection does not prove: it connected from an
    /// identity address other than the one it named, or from a resolvable private address its
    /// IRK does not resolve (or it sent no usable IRK), or from a non-resolvable private address.
    /// Pairing Failed, Invalid Parameters (0x0A).
    case identityNotProven(connectedFrom: BluetoothAddress, claimed: BluetoothAddress)
    /// The pairing would overwrite the bond of another device stored under `identity`: the
    /// connection neither comes from that identity nor resolves through its IRK. Never allowed.
    /// Pairing Failed, Unspecified Reason (0x08).
    case identityBondedToAnotherDevice(BluetoothAddress)
    /// The pairing is weaker than the bond it would replace (unauthenticated, a lower level or a
    /// shorter key) and the pairing agent did not confirm the replacement. Pairing Failed,
    /// Unspecified Reason (0x08).
    case weakerThanStoredBond(existing: BondStrength, replacement: BondStrength)
    /// The bond store could not be read to check the pairing against it. Pairing Failed,
    /// Unspecified Reason (0x08).
    case bondStoreUnavailable(String)

    /// Why the keys were refused, naming the addresses and levels involved (never a key), e.g.
    /// `the peer at … claimed the identity …, which its connection does not prove`.
    public var description: String {
        switch self {
        case let .identityNotProven(connectedFrom, claimed):
            "the peer at \(connectedFrom) claimed the identity \(claimed), which its connection does not prove"
        case let .identityBondedToAnotherDevice(identity):
            "the peer claimed the identity \(identity), which is bonded to another device"
        case let .weakerThanStoredBond(existing, replacement):
            "the pairing (\(replacement.level), \(replacement.keySize * 8)-bit key) is weaker than the stored bond "
                + "(\(existing.level), \(existing.keySize * 8)-bit key) of \(existing.identityAddress); the bond was kept"
        case let .bondStoreUnavailable(detail): "the bond store could not be read: \(detail)"
        }
    }
}

/// Why the link's security was not raised, without any pairing attempt.
public enum SecurityRaiseRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// This link already ran its one pairing (or encryption) at the peer's or a refusal's
    /// request; a peer that keeps asking or refusing cannot make it pair again and again. The
    /// link has `current`; reconnect to try again, or pair explicitly.
    case alreadyRaisedOnThisLink(current: SecurityLevel)
    /// The level asked for needs MITM protection, which this device's IO capability (named) can
    /// never give in pairing (no display, no keyboard): pairing would end Just Works, so none is
    /// attempted.
    case ioCapabilityCannotAuthenticate(ioCapability: String, needed: SecurityLevel)

    /// Why no pairing was started: the level the link already has, or the IO capability that
    /// cannot give the level asked.
    public var description: String {
        switch self {
        case let .alreadyRaisedOnThisLink(current):
            "this link's security was raised once already (it is \(current)); the peer asks again, and it is not paired again on this link"
        case let .ioCapabilityCannotAuthenticate(io, needed):
            "\(needed) needs MITM protection, which this device's IO capability (\(io)) cannot give: no pairing was attempted"
        }
    }
}
