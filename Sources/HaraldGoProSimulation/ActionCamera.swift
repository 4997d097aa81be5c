import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator

/// The simulated Open GoPro camera.
extension VirtualPeripheral {
    /// A GoPro-like action camera speaking the Open GoPro BLE protocol, written from the
    /// protocol's documentation (protocols.md A), not from the camera kit.
    ///
    /// Service 0xFEA6 with the command (GP-0072), settings (GP-0074) and query (GP-0076)
    /// characteristics and their notifying response characteristics (GP-0073/0075/0077).
    /// Requests are reassembled per connection and characteristic (General and Extended 13-bit
    /// headers, multi-packet requests included); answers go out as a General-header packet when
    /// they fit 20 bytes, else as an Extended 13-bit packet and continuation packets, one whole
    /// message at a time per connection.
    ///
    /// - Commands: 0x01 shutter (starts and stops recording: statuses 8 busy and 10 encoding;
    ///   while recording, 13 video progress rises and 35 video time left falls a second per
    ///   second, 70 battery loses 1 % a minute), 0x3C Get Hardware Info (91 bytes, 5 packets;
    ///   status 1 until `bootTime` after the connection), 0x51 Open GoPro version (2.0), 0x05
    ///   sleep, 0x17 AP control, 0x18 hilight, 0x3E load preset group. A bad shutter parameter
    ///   answers status 2, an unknown command status 1.
    /// - Settings: resolution (2), frames per second (3), auto power down (59), LED (91), lens
    ///   (121), each with its allowed values (others: status 2; at 5K, resolution 24, only 60,
    ///   30 and 24 fps); the keep-alive (LED = 0x42) is acknowledged and changes nothing.
    /// - Queries: 0x12/0x13 get settings/statuses (all of them when no IDs are given: the 88
    ///   statuses of a real camera, 370 bytes in 20 packets), 0x32 capabilities, 0x52/0x53/0x62
    ///   register (answering the current values or capabilities), 0x72/0x73/0x82 unregister.
    ///   Registered connections get 0x92 (setting), 0x93 (status) and 0xA2 (capability: the
    ///   frame rates when the resolution enters or leaves 5K) pushes when a value changes.
    ///
    /// The WiFi AP service (GP-0001) has the SSID (GP-0002), readable only once the link is
    /// paired (Insufficient Encryption before), as on the real camera; `pairing` decides how
    /// pairing goes. `faults` make the camera misbehave for tests (``ActionCameraFault``).
    public static func actionCamera(
        address: BluetoothAddress = BluetoothAddress("D4:D9:19:00:00:02", kind: .random)!, name: String = "GoPro 0042", rssi: RSSI? = -64,
        pairing: PairingResponse = .accept(after: .milliseconds(800)), bootTime: Duration = .seconds(1), faults: [ActionCameraFault] = []
    ) -> VirtualPeripheral {
        actionCamera(identity: CameraIdentity(), address: address, name: name, rssi: rssi, pairing: pairing, bootTime: bootTime, faults: faults)
    }

    /// The camera of ``actionCamera(address:name:rssi:pairing:bootTime:faults:)`` with another
    /// identity (model, firmware, serial, access point) in its hardware info and statuses.
    static func actionCamera(
        identity: CameraIdentity, address: BluetoothAddress, name: String, rssi: RSSI?, pairing: PairingResponse, bootTime: Duration,
        faults: [ActionCameraFault]
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address, advertisingData: .device(name: name, services: [OpenGoPro.service]), rssi: rssi,
            advertisingInterval: .milliseconds(200), pairing: pairing
        ) { runtime in
            // The same camera `harald serve gopro` serves, on the simulation's clock.
            let camera = ActionCameraDevice(identity: identity, name: name, bootTime: bootTime, faults: faults, clock: runtime.clock)
            return PeripheralBehaviour(definition: camera.definition) { session in
                await camera.serve(
                    session.central, notify: { characteristic, packet in await session.notify(characteristic, packet) },
                    sleep: { await session.sleep(for: $0) })
            }
        }
    }
}
