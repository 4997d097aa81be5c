import HaraldL2CAP

/// Result and reason codes the host answers with while it serves no credit-based channel (Core
/// spec Vol 3 Part A §4.1, §4.23, §4.26, §4.28).
enum LESignalingRefusal {
    /// Command Reject reason: the command is not understood.
    static let commandNotUnderstood: UInt16 = 0x0000
    /// Command Reject reason: the request names a channel identifier that is not open.
    static let invalidCIDInRequest: UInt16 = 0x0002
    /// LE Credit Based Connection Response result: no server on that SPSM.
    static let spsmNotSupported: UInt16 = 0x0002
    /// Credit Based Connection Response result: every channel refused, no server on that SPSM.
    static let allRefusedSPSMNotSupported: UInt16 = 0x0002
    /// Credit Based Reconfigure Response result: one or more Destination CIDs are invalid.
    static let reconfigurationInvalidDestinationCIDs: UInt16 = 0x0003
    /// Most channels one Credit Based Connection Request may open.
    static let maximumChannelsPerRequest = 5
}

/// The host's answer to one LE signaling PDU (pure, for tests): the reply to send and, for an
/// accepted Connection Parameter Update Request, the parameters to apply.
struct LESignalingAnswer: Equatable {
    var reply: [UInt8]?
    var update: LEConnectionParameters?
}

/// The answer to one LE signaling PDU from the peer. `role`: ours on the link. Only a central takes Connection Parameter Update Requests; a
/// peripheral rejects one (command not understood), as Core spec Vol 3 Part A §4.20 asks.
func answerLESignaling(_ pdu: [UInt8], role: LERole = .central) -> LESignalingAnswer {
    guard pdu.count >= 4 else { return LESignalingAnswer() }  // too short to answer: ignore
    let code = pdu[0], identifier = pdu[1]
    let length = Int(pdu[2]) | Int(pdu[3]) << 8
    let data = Array(pdu.dropFirst(4))
    func reply(_ code: UInt8, _ body: [UInt8]) -> [UInt8] {
        [code, identifier, UInt8(body.count), 0] + body
    }
    if LESignalingCode.responses.contains(code) { return LESignalingAnswer() }
    guard data.count == length else {
        return LESignalingAnswer(reply: reply(LESignalingCode.commandReject, littleEndian(LESignalingRefusal.commandNotUnderstood)))
    }
    switch code {
    case LESignalingCode.connectionParameterUpdateRequest where data.count == 8 && role == .central:
        let word = { (index: Int) in UInt16(data[index]) | UInt16(data[index + 1]) << 8 }
        let parameters = LEConnectionParameters(
            intervalMin: word(0), intervalMax: word(2), latency: word(4),
            supervisionTimeout: word(6))
        let valid =
            parameters.intervalMin >= 6 && parameters.intervalMin <= parameters.intervalMax
            && parameters.intervalMax <= 3200 && parameters.latency <= 499
            && (10...3200).contains(parameters.supervisionTimeout)
            // The supervision timeout must outlast (1 + latency) intervals: timeout·10 ms > (1+latency)·interval·1.25 ms·2.
            && Int(parameters.supervisionTimeout) * 4 > (1 + Int(parameters.latency)) * Int(parameters.intervalMax)
        return LESignalingAnswer(
            reply: reply(LESignalingCode.connectionParameterUpdateResponse, valid ? [0x00, 0x00] : [0x01, 0x00]),
            update: valid ? parameters : nil)
    case LESignalingCode.leCreditBasedConnectionRequest where data.count == 10:
        // No channel is served yet: Destination CID, MTU, MPS and credits 0, refused.
        return LESignalingAnswer(
            reply: reply(
                LESignalingCode.leCreditBasedConnectionResponse,
                [0, 0, 0, 0, 0, 0, 0, 0] + littleEndian(LESignalingRefusal.spsmNotSupported)))
    case LESignalingCode.creditBasedConnectionRequest
    where data.count >= 10 && data.count % 2 == 0 && (data.count - 8) / 2 <= LESignalingRefusal.maximumChannelsPerRequest:
        // MTU, MPS and credits 0, the result, then a Destination CID of 0 for each channel asked for.
        let channels = (data.count - 8) / 2
        return LESignalingAnswer(
            reply: reply(
                LESignalingCode.creditBasedConnectionResponse,
                [0, 0, 0, 0, 0, 0] + littleEndian(LESignalingRefusal.allRefusedSPSMNotSupported)
                    + [UInt8](repeating: 0, count: 2 * channels)))
    case LESignalingCode.creditBasedReconfigureRequest where data.count >= 6 && data.count % 2 == 0:
        return LESignalingAnswer(
            reply: reply(
                LESignalingCode.creditBasedReconfigureResponse,
                littleEndian(LESignalingRefusal.reconfigurationInvalidDestinationCIDs)))
    case LESignalingCode.disconnectionRequest where data.count == 4:
        // No such channel: the reject names it as the request did, ours (its Destination CID) first.
        return LESignalingAnswer(
            reply: reply(
                LESignalingCode.commandReject,
                littleEndian(LESignalingRefusal.invalidCIDInRequest) + Array(data[0..<4])))
    default:
        return LESignalingAnswer(reply: reply(LESignalingCode.commandReject, littleEndian(LESignalingRefusal.commandNotUnderstood)))
    }
}

/// Security Manager (CID 0x0006) on a host with no Security Manager above it: every Pairing
/// Request and Security Request is answered with Pairing Failed, reason 0x05 Pairing Not Supported.
func answerSecurityManager(_ pdu: [UInt8]) -> [UInt8]? {
    guard let code = pdu.first else { return nil }
    switch code {
    case 0x01, 0x0B:  // Pairing Request, Security Request
        return [0x05, 0x05]  // Pairing Failed: Pairing Not Supported
    default:
        return nil
    }
}

/// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ with `identifier` (Core spec Vol 3 Part A §4.20):
/// interval min and max, latency, supervision timeout, each a little-endian 16-bit word.
func connectionParameterUpdateRequest(identifier: UInt8, _ parameters: LEConnectionParameters) -> [UInt8] {
    var body: [UInt8] = []
    for word in [parameters.intervalMin, parameters.intervalMax, parameters.latency, parameters.supervisionTimeout] {
        body += [UInt8(word & 0xFF), UInt8(word >> 8)]
    }
    return [LESignalingCode.connectionParameterUpdateRequest, identifier, UInt8(body.count), 0] + body
}

/// A 16-bit field as the signaling channel carries it, low octet first.
private func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
