import Harald
import HaraldATT
import HaraldCore
import HaraldL2CAP

/// A connection-oriented channel service of a virtual device (``VirtualPeripheral/channels``):
/// what it does with each channel a central opens on its PSM, and the faults it shows.
public struct VirtualChannelService: Sendable {
    /// What the device does on each channel.
    public enum Behaviour: Sendable, Hashable {
        /// Sends every SDU back as it came.
        case echo
        /// Takes every SDU (and gives its credits back); answers the SDU "report" with
        /// "<bytes> <sdus>" of what came before it.
        case sink
        /// On the SDU "send N", sends N bytes (byte i is i mod 251) in SDUs of the central's MTU,
        /// then closes the channel.
        case source
    }

    /// A way the device breaks the channel's rules or stalls it (Core spec Vol 3 Part A §10.1).
    public enum Fault: Sendable, Hashable {
        /// It never reads, so it never gives credits back: the central's sends stall once the
        /// initial credits are spent.
        case withholdCredits
        /// As soon as the channel opens it sends an SDU announced one byte longer than the
        /// central's MTU.
        case oversizeSDU
        /// As soon as the channel opens it sends the first K-frame of a long SDU, then closes
        /// the channel.
        case disconnectMidSDU
    }

    /// The PSM centrals open the channels on.
    public var psm: L2CAPPSM
    /// What the device does with each channel.
    public var behaviour: Behaviour
    /// The device's receive limits and flow control mode.
    public var options: L2CAPChannelOptions
    /// The security a central's link needs to open it.
    public var security: SecurityLevel
    /// The rule the device breaks, if any.
    public var fault: Fault?

    /// A service on `psm` doing `behaviour`, with `options`, for links meeting `security`, showing `fault`.
    public init(
        psm: L2CAPPSM, behaviour: Behaviour = .echo, options: L2CAPChannelOptions = L2CAPChannelOptions(), security: SecurityLevel = .none,
        fault: Fault? = nil
    ) {
        (self.psm, self.behaviour, self.options, self.security, self.fault) = (psm, behaviour, options, security, fault)
    }

    /// The service as the device's channel services hold it, running its behaviour on `clock`.
    func service(clock: VirtualClock) -> SimulatedChannelServices.Service {
        let (behaviour, fault) = (behaviour, fault)
        return SimulatedChannelServices.Service(
            server: CreditBasedChannels.Server(spsm: psm.rawValue, limits: SimulatedChannel.limits(options)),
            requirement: GATTSecurityRequirement(level: security),
            deliver: { _, channel in
                clock.taskStarter.start { await Self.run(behaviour, fault: fault, on: channel) }
            })
    }

    private static func run(_ behaviour: Behaviour, fault: Fault?, on channel: SimulatedChannel) async {
        switch fault {
        case .withholdCredits?:
            return  // never reads
        case .oversizeSDU?:
            let length = (channel.info.peerMTU + 1)
            await channel.sendRaw([UInt8(length & 0xFF), UInt8(length >> 8)] + [UInt8](repeating: 0xEE, count: max(0, min(channel.info.peerMPS, 64) - 2)))
            return
        case .disconnectMidSDU?:
            let length = channel.info.peerMPS * 3
            await channel.sendRaw([UInt8(length & 0xFF), UInt8(length >> 8)] + [UInt8](repeating: 0xDD, count: channel.info.peerMPS - 2))
            await channel.close()
            return
        case nil:
            break
        }
        var received = (bytes: 0, sdus: 0)
        while let sdu = try? await channel.receive() {
            switch behaviour {
            case .echo:
                do { try await channel.send(sdu) } catch { return }
            case .sink:
                if sdu == Array("report".utf8) {
                    try? await channel.send(Array("\(received.bytes) \(received.sdus)".utf8))
                } else {
                    received.bytes += sdu.count
                    received.sdus += 1
                }
            case .source:
                let words = String(decoding: sdu, as: UTF8.self).split(separator: " ")
                guard words.count == 2, words[0] == "send", let count = Int(words[1]) else { continue }
                let size = max(1, channel.info.peerMTU)
                var offset = 0
                while offset < count {
                    let end = min(offset + size, count)
                    do { try await channel.send((offset..<end).map { UInt8($0 % 251) }) } catch { return }
                    offset = end
                }
                await channel.close()
                return
            }
        }
    }
}
