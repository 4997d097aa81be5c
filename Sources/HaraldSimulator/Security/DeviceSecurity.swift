import HaraldCore
import HaraldSMP

/// A virtual device's own Security Manager, as the responder of a pairing: what it offers
/// (IO capability, bonding, MITM, Secure Connections, key sizes) and how its person answers.
///
/// With a central that runs Harald's Security Manager too (``Simulator`` made with a
/// `SecurityConfiguration`), pairing is the real procedure on both sides, in virtual time: the
/// association model both IO capabilities choose, the confirm and DHKey checks, key distribution,
/// the encryption. A wrong passkey fails for the same reason it fails on a radio (Confirm Value
/// Failed), and the device keeps its keys per central, so a bonded central re-encrypts on the next
/// connection unless ``Simulator/forgetBonds(of:)`` made the device lose them.
public struct DeviceSecurity: Hashable, Sendable {
    /// IO capability, AuthReq, key sizes and key distribution of the device.
    public var configuration: PairingConfiguration
    /// The passkey the device shows (when it displays) or its person types (when it has a
    /// keyboard and the central displays); nil types nothing, which refuses pairing.
    public var passkey: UInt32?
    /// What the device's person answers to Numeric Comparison.
    public var confirmsNumericComparison: Bool
    /// The identity the device distributes in key distribution when it is not its own: a
    /// hostile device claiming another device's identity address (and IRK), for tests of the
    /// central's bond rules. Nil (the default) distributes the device's own identity.
    public var distributedIdentity: LocalIdentity?

    /// A device's side of pairing: its configuration, the passkey it shows or types (0…999999), and its answer to Numeric Comparison.
    public init(
        configuration: PairingConfiguration = PairingConfiguration(), passkey: UInt32? = nil, confirmsNumericComparison: Bool = true,
        distributedIdentity: LocalIdentity? = nil
    ) {
        self.configuration = configuration
        self.passkey = passkey
        self.confirmsNumericComparison = confirmsNumericComparison
        self.distributedIdentity = distributedIdentity
    }

    /// A device that displays `passkey` for the person to type on the central, and asks for a
    /// MITM-protected bond with LE Secure Connections (a meter with a screen, say).
    public static func displaying(_ passkey: UInt32) -> DeviceSecurity {
        DeviceSecurity(
            configuration: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]), passkey: passkey)
    }

    /// The device's person, answering what the association model asks.
    var agent: AutomaticPairingAgent {
        AutomaticPairingAgent(passkey: passkey, acceptsNumericComparison: confirmsNumericComparison)
    }

    /// Hashes the parts that decide behaviour (the configuration's fields).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(configuration)
        hasher.combine(passkey)
        hasher.combine(confirmsNumericComparison)
        hasher.combine(distributedIdentity)
    }
}
