/// The cryptographic toolbox of the Security Manager (Core spec Vol 3 Part H §2.2): the
/// functions `e`, `c1`, `s1`, `ah`, `f4`, `f5`, `f6`, `g2`, `h6` and `h7`, AES-CMAC under them,
/// and P-256 key agreement (``P256KeyPair``).
///
/// ## Byte order
///
/// This is the one place the convention is written down. The spec defines every function on
/// octet strings written most significant octet first, where `a || b` puts `a` in the more
/// significant octets; SMP PDUs and HCI carry the same values least significant octet first.
/// Getting this wrong is the classic SMP bug, so no function here takes or returns an
/// anonymous byte array whose order is a guess:
///
/// - Values are typed, and a type knows its own order: ``Value128``, ``Value256`` and ``DHKey``
///   are made and read with `bigEndianBytes` (the spec's order, what AES sees) or
///   `littleEndianBytes` (the wire order); `SecretKey128` keeps `littleEndianBytes`, and as an
///   AES key its most significant octet is FIPS-197's `key[0]`; `BluetoothAddress` knows its
///   kind and both orders.
/// - Where the spec concatenates values, the function does it from the typed values, so a
///   caller never reverses anything.
/// - The few raw octet arrays (the Pairing Request and Response given to ``c1(_:_:pairingRequest:pairingResponse:initiator:responder:)``
///   and ``P256PublicKey/init(littleEndianBytes:)``) are in wire order, as sent, and say so in
///   their labels. AES-CMAC's message (``aesCMAC(_:_:)``) is RFC 4493's: a plain octet string,
///   first octet first.
///
/// Secrets (keys, DHKey, the passkey or OOB `r` of `f6`) travel as `SecretKey128` or ``DHKey``,
/// whose descriptions never show their bits; ``Value128`` and ``Value256`` hold values that
/// cross the air in the clear (nonces, confirm and check values, key coordinates) and print
/// them.
public enum SMPCrypto {}
