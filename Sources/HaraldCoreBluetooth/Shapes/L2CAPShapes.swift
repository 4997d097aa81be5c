import Foundation

// CoreBluetooth's L2CAP channel object, as a protocol with Apple's member names and signatures.
// On Apple platforms `CBL2CAPChannel` and `CBPeer` conform as they are
// (Apple/SystemCoreBluetooth.swift); elsewhere a fake conforms with in-memory streams.

/// Shaped like `CBPeer`: the device at the other end of a channel.
public protocol CoreBluetoothPeer: AnyObject {
    /// The per-phone identifier CoreBluetooth assigns to the device.
    var identifier: UUID { get }
}

/// Shaped like `CBL2CAPChannel`: an open connection-oriented channel, read and written through
/// run-loop based streams.
public protocol CoreBluetoothL2CAPChannel: AnyObject {
    /// The peer type (`CBPeer`).
    associatedtype Peer: CoreBluetoothPeer
    /// The device at the other end: the central on a peripheral, the peripheral on a central.
    var peer: Peer! { get }
    /// The bytes the peer sends.
    var inputStream: InputStream! { get }
    /// The bytes sent to the peer.
    var outputStream: OutputStream! { get }
    /// The channel's PSM (`CBL2CAPPSM`).
    var psm: UInt16 { get }
}
