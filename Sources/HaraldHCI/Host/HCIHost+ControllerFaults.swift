import HaraldCodec

/// Events a controller sends when it, not the peer, is in trouble (Core Vol 4 Part E 7.7.15 and
/// 7.7.26), and what the host does with each:
///
/// - Hardware Error (0x10): the controller's state is unknown (it may have reset itself and
///   forgotten every link), so the host closes with ``HCIError/controllerHardwareError(_:)``:
///   every pending operation fails with it and every connection ends with Hardware Failure.
///   The application opens a new host (which resets the controller) to go on.
/// - Data Buffer Overflow (0x1A): the controller dropped packets it had no room for. The host
///   counts it (``HCIHost/dataBufferOverflows``) and logs it at error level; the links stay, and
///   whatever the lost data belonged to fails the way lost data does (an ATT transaction times
///   out and closes its bearer, which gives the link's buffers back).
extension HCIHost {
    static let hardwareErrorCode: UInt8 = 0x10
    static let dataBufferOverflowCode: UInt8 = 0x1A

    /// An event the host has no decoder for: the controller-fault events above, or nothing.
    func controllerReported(code: UInt8, parameters: [UInt8]) {
        switch code {
        case Self.hardwareErrorCode:
            let hardwareCode = parameters.first ?? 0
            logger.error("the controller reported a hardware error; closing the host", metadata: ["code": "0x\(Hex.byte(hardwareCode))"])
            shutDown(.controllerHardwareError(hardwareCode))
        case Self.dataBufferOverflowCode:
            dataBufferOverflows += 1
            let linkType = parameters.first.map { $0 == 0x01 ? "ACL" : "0x\(Hex.byte($0))" } ?? "unknown"
            logger.error(
                "the controller dropped data it had no buffer for (Data Buffer Overflow)",
                metadata: ["link type": "\(linkType)", "credits": "\(aclFlow.credits)"])
        default:
            break
        }
    }

    /// An ACL packet for a handle with no connection (one that ended a moment ago, or a
    /// controller's mistake): dropped and logged; no connection sees it.
    func unroutableACL(_ fragment: ACLDataPacket) {
        unroutedACLPackets += 1
        logger.debug(
            "dropped ACL data for a connection the host does not know",
            metadata: ["connection": "0x\(Hex.word(fragment.handle))", "bytes": "\(fragment.data.count)"])
    }

    /// A successful LE Connection Complete that nobody waits for: as central with no attempt
    /// pending (one that timed out or was cancelled just as the link came up), or as peripheral
    /// with nobody listening for incoming connections. The link exists in the controller, so
    /// rather than leave it open unseen the host disconnects it (Remote User Terminated).
    func unexpectedConnection(handle: UInt16, role: String) {
        logger.notice(
            "a connection nobody asked for came up; disconnecting it",
            metadata: [
                "connection": "0x\(Hex.word(handle))", "role": "\(role)",
            ])
        startBackground { host in
            await host.bestEffort("disconnecting an unexpected connection", handle: handle) { host throws(HCIError) in
                _ = try await host.disconnect(handle: handle, reason: .remoteUserTerminatedConnection)
            }
        }
    }
}
