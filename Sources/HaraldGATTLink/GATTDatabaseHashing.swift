import HaraldATT
import HaraldCore
import HaraldSMP

/// The AES-CMAC Harald's servers compute the Database Hash (0x2B2A) with: the Security
/// Manager's, under the all-zero key (Core spec Vol 3 Part G §7.3.1).
public enum GATTDatabaseHashing {
    /// AES-CMAC of the database's hash message under the all-zero key, as the 16 bytes the
    /// Database Hash characteristic carries.
    public static let aesCMAC: GATTDatabaseHashFunction = { message in
        // Sixteen zero bytes always make a key.
        guard let zero = SecretKey128(littleEndianBytes: [UInt8](repeating: 0, count: 16)) else { return [] }
        return SMPCrypto.aesCMAC(zero, message).bigEndianBytes
    }
}

/// The server configuration of Harald's peripherals.
extension GATTServer.Configuration {
    /// The configuration Harald's peripherals serve with: the Generic Attribute service carries
    /// Service Changed and Database Hash.
    public static var peripheral: GATTServer.Configuration { GATTServer.Configuration(databaseHash: GATTDatabaseHashing.aesCMAC) }
}
