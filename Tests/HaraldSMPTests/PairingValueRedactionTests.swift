import HaraldCodec
import HaraldCore
import HaraldSMP
import Testing

/// Pairing Confirm, Pairing Random and DHKey Check values go on the wire but never into text.
@Suite("SMP pairing values stay out of text")
struct PairingValueRedactionTests {
    static let value: [UInt8] = [0x5A, 0x3C, 0x96, 0xE1, 0x7B, 0x2D, 0xF0, 0x48, 0xC3, 0x19, 0xA7, 0x6E, 0x84, 0xD2, 0x0F, 0xB5]

    static let pdus: [SMPPDU] = [
        .pairingConfirm(SMPPairingConfirm(confirmValue: value)),
        .pairingRandom(SMPPairingRandom(randomValue: value)),
        .pairingDHKeyCheck(SMPPairingDHKeyCheck(checkValue: value)),
    ]

    @Test(arguments: pdus)
    func noTextShowsTheValue(_ pdu: SMPPDU) throws {
        var dumped = ""
        dump(pdu, to: &dumped)
        var bodyDump = ""
        dump(pdu.body, to: &bodyDump)
        let decimal = Self.value.prefix(3).map(String.init).joined(separator: ", ")
        for text in [String(describing: pdu), String(reflecting: pdu), "\(pdu.body)", String(reflecting: pdu.body), dumped, bodyDump] {
            #expect(!text.lowercased().contains("5a3c96") && !text.contains(decimal) && !text.lowercased().contains("0x5a"), "\(text)")
        }
        #expect("\(pdu.body)".contains("<redacted 16 bytes>"))
        #expect(try pdu.encodedBytes().suffix(16).elementsEqual(Self.value), "the wire carries the value")
    }
}
