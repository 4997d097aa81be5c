import Harald
import Testing

@Suite("Disconnect reasons from HCI reason codes")
struct DisconnectReasonTests {
    @Test(arguments: [UInt8(0x13), 0x14, 0x15])
    func thePeersTerminationCodesAreARemoteRequest(code: UInt8) {
        #expect(DisconnectReason(hciReason: code) == .remoteRequest)
    }

    @Test func connectionTerminatedByLocalHostIsALocalRequest() {
        #expect(DisconnectReason(hciReason: 0x16) == .localRequest)
    }

    @Test func pinOrKeyMissingMeansThePeerRemovedItsPairingInformation() {
        #expect(DisconnectReason(hciReason: 0x06) == .peerRemovedPairingInformation)
        #expect(DisconnectReason.peerRemovedPairingInformation.description == "the peer removed its pairing information")
    }

    @Test(arguments: [UInt8(0x08), 0x22, 0x3B, 0x3D, 0x3E, 0x00, 0xFF])
    func everyOtherCodeIsALostConnection(code: UInt8) {
        #expect(DisconnectReason(hciReason: code) == .connectionLost)
    }
}
