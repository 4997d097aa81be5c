import Foundation
import HaraldCodec
import HaraldCore
@testable import HaraldHCI
import Testing

/// Keys never reach text (descriptions, debug descriptions, dumps) and captures are owner-only.
@Suite("Secrets at rest: packet texts and btsnoop files")
struct SecretsAtRestTests {
    /// A key whose octets are easy to spot in any rendering: 5a 3c 96 e1 …
    static let keyBytes: [UInt8] = [0x5A, 0x3C, 0x96, 0xE1, 0x7B, 0x2D, 0xF0, 0x48, 0xC3, 0x19, 0xA7, 0x6E, 0x84, 0xD2, 0x0F, 0xB5]
    static let key = SecretKey128(littleEndianBytes: keyBytes)!

    /// Every text a value can end up in.
    static func texts(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped]
    }

    /// Fragments of the key in any spelling a text might use (hex either case and order, decimal).
    static let forbidden: [String] = {
        let forward = keyBytes.hexString.lowercased()
        let backward = Array(keyBytes.reversed()).hexString.lowercased()
        var needles: [String] = []
        for hex in [forward, backward] {
            for start in stride(from: 0, to: hex.count - 6, by: 2) {
                let slice = String(hex.dropFirst(start).prefix(6))
                needles.append(slice)
            }
        }
        return needles + ["90, 60, 150", "0x5a", "0x5A", "\(0x5A), \(0x3C)"]
    }()

    static func expectNoKey(in value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts(value) {
            let lowered = text.lowercased()
            for needle in forbidden where lowered.contains(needle.lowercased()) {
                Issue.record("key material (\(needle)) in: \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    /// An SMP PDU on the Security Manager channel, as one first ACL fragment.
    static func smpPacket(code: UInt8, body: [UInt8], handle: UInt16 = 0x0040) -> HCIPacket {
        let pdu = [code] + body
        let l2cap = [UInt8(pdu.count), 0x00, 0x06, 0x00] + pdu
        return ACLDataPacket(handle: handle, packetBoundary: .firstFlushable, data: l2cap).packet
    }

    static let keyCarryingCommands: [HCICommand] = [
        .leEnableEncryption(handle: 0x0040, rand: 0x1122_3344_5566_7788, ediv: 0x99AA, key: key),
        .leLongTermKeyRequestReply(handle: 0x0040, key: key),
        HCICommand(.leEncrypt, parameters: keyBytes + [UInt8](repeating: 0, count: 16)),
        HCICommand(.leAddDeviceToResolvingList, parameters: [0x01, 1, 2, 3, 4, 5, 0xC6] + keyBytes + keyBytes),
        HCICommand(.linkKeyRequestReply, parameters: [1, 2, 3, 4, 5, 6] + keyBytes),
    ]

    @Test(arguments: keyCarryingCommands)
    func keyCarryingCommandsNeverShowTheKey(_ command: HCICommand) {
        Self.expectNoKey(in: command)
        Self.expectNoKey(in: command.packet)
        #expect(command.description.contains("<redacted "))
        #expect(command.packet.description.contains("<redacted "))
    }

    @Test func theLTKReplyShowsItsHandleAndWithholdsSixteenBytes() {
        let packet = HCICommand.leLongTermKeyRequestReply(handle: 0x0040, key: Self.key).packet
        #expect(packet.description == "command 1a20124000 <redacted 16 bytes>")
        let enable = HCICommand.leEnableEncryption(handle: 0x0040, rand: 0x1122_3344_5566_7788, ediv: 0x99AA, key: Self.key)
        #expect(enable.description == "0x2019 LE Enable Encryption [40008877665544332211aa99 <redacted 16 bytes>]")
        // The wire still carries the key.
        #expect(enable.packet.payload.suffix(16).elementsEqual(Self.keyBytes))
    }

    /// SMP PDUs whose values are keys or lead to them (see `HCIPacketRedaction`).
    static let secretSMPPDUs: [(code: UInt8, body: [UInt8])] = [
        (0x03, keyBytes),  // Pairing Confirm
        (0x04, keyBytes),  // Pairing Random
        (0x06, keyBytes),  // Encryption Information: LTK
        (0x07, [0xB5, 0x0F] + Array(keyBytes.prefix(8))),  // Central Identification: EDIV, Rand
        (0x08, keyBytes),  // Identity Information: IRK
        (0x0A, keyBytes),  // Signing Information: CSRK
        (0x0D, keyBytes),  // Pairing DHKey Check
    ]

    @Test(arguments: secretSMPPDUs.map(\.code))
    func smpKeyPDUsInACLDataNeverShowTheValue(code: UInt8) throws {
        let body = try #require(Self.secretSMPPDUs.first { $0.code == code }).body
        let packet = Self.smpPacket(code: code, body: body)
        Self.expectNoKey(in: packet)
        #expect(packet.description.hasSuffix("<redacted \(body.count) bytes>"))
        // The L2CAP header and the SMP code stay visible.
        #expect(packet.description.contains("0600" + Hex.byte(code).lowercased()))
    }

    @Test func otherSMPAndATTDataIsShownWhole() {
        let request = Self.smpPacket(code: 0x01, body: [0x03, 0x00, 0x2D, 0x10, 0x0F, 0x0F])
        #expect(!request.description.contains("redacted"))
        let att = ACLDataPacket(handle: 0x0040, packetBoundary: .firstFlushable, data: [0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]).packet
        #expect(!att.description.contains("redacted") && att.description.hasSuffix("0a0300"))
    }

    @Test func aKeyCutIntoContinuationFragmentsIsNeverShown() {
        // A peer may split its Encryption Information so that the LTK arrives in continuations.
        let first = ACLDataPacket(handle: 0x0040, packetBoundary: .firstFlushable, data: [0x11, 0x00, 0x06, 0x00]).packet
        let rest = ACLDataPacket(handle: 0x0040, packetBoundary: .continuing, data: [0x06] + Self.keyBytes).packet
        Self.expectNoKey(in: first)
        Self.expectNoKey(in: rest)
        #expect(rest.description.hasSuffix("<redacted 17 bytes>"))
    }

    @Test func keyCarryingEventsNeverShowTheKey() throws {
        // Command Complete of LE Encrypt: status then the ciphertext.
        let encrypted = ControllerEventsForRedaction.commandComplete(opcode: 0x2017, returnParameters: [0x00] + Self.keyBytes)
        // LE Generate DHKey Complete: subevent 0x09, status, DHKey (32 octets).
        let dhKey = HCIPacket(type: .event, payload: [0x3E, 34, 0x09, 0x00] + Self.keyBytes + Self.keyBytes)
        // Link Key Notification (BR/EDR): address, key, type.
        let linkKey = HCIPacket(type: .event, payload: [0x18, 23, 1, 2, 3, 4, 5, 6] + Self.keyBytes + [0x04])
        for packet in [encrypted, dhKey, linkKey] {
            Self.expectNoKey(in: packet)
            let event = try HCIEvent(packet: packet)
            Self.expectNoKey(in: event)
        }
    }

    @Test func theLongTermKeyRequestEventHasNothingToRedact() throws {
        // The host's own text for an LE Long Term Key Request event shows Rand and EDIV (they go
        // over the air in the clear) but it carries no key: nothing to redact.
        let request = HCIPacket(type: .event, payload: [0x3E, 0x0D, 0x05, 0x40, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22])
        #expect(!request.description.contains("redacted"))
    }

    // MARK: btsnoop files

    private func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-snoop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func aNewCaptureIsOwnerOnlyWhateverTheUmask() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("new.btsnoop").path
            let previous = umask(0)  // the loosest umask: a plain create would give 0666
            defer { umask(previous) }
            let writer = try BTSnoopWriter(path: path)
            writer.record(HCICommand.leLongTermKeyRequestReply(handle: 0x40, key: Self.key).packet, direction: .hostToController)
            writer.finish()
            #expect(try mode(path) == 0o600)
            // The capture itself keeps every byte: that is what it is for.
            let contents = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(contents.starts(with: BTSnoopWriter.fileHeader))
            #expect(contents.suffix(16).elementsEqual(Self.keyBytes))
        }
    }

    @Test func anExistingLooseFileIsTightenedAndATightOneIsNotLoosened() throws {
        try withDirectory { directory in
            let loose = directory.appendingPathComponent("loose.btsnoop").path
            #expect(FileManager.default.createFile(atPath: loose, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o644]))
            _ = try BTSnoopWriter(path: loose)
            #expect(try mode(loose) == 0o600)
            #expect(try Data(contentsOf: URL(fileURLWithPath: loose)) == Data(BTSnoopWriter.fileHeader), "truncated, then the header")

            let tight = directory.appendingPathComponent("tight.btsnoop").path
            #expect(FileManager.default.createFile(atPath: tight, contents: Data(), attributes: [.posixPermissions: 0o600]))
            _ = try BTSnoopWriter(path: tight)
            #expect(try mode(tight) == 0o600)

            let ownerWriteOnly = directory.appendingPathComponent("write-only.btsnoop").path
            #expect(FileManager.default.createFile(atPath: ownerWriteOnly, contents: Data(), attributes: [.posixPermissions: 0o200]))
            _ = try BTSnoopWriter(path: ownerWriteOnly)
            #expect(try mode(ownerWriteOnly) == 0o200, "never loosened")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a file to another user"))
    func aFileAnotherUserOwnsIsNeverWritten() throws {
        try withDirectory { (directory: URL) throws in
            let path = directory.appendingPathComponent("planted.btsnoop").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]))
            #expect(chown(path, 65534, 65534) == 0)
            #expect(throws: BTSnoopFileError.notOwned(path: path)) { try BTSnoopWriter(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        }
    }

    @Test func aCaptureThatCannotBeCreatedIsATypedError() throws {
        try withDirectory { directory in
            let path = directory.appendingPathComponent("missing/capture.btsnoop").path
            #expect { try BTSnoopWriter(path: path) } throws: { error in
                guard case BTSnoopFileError.cannotOpen(let failed, _) = error else { return false }
                return failed == path
            }
        }
    }
}

/// Event packets for the redaction tests.
enum ControllerEventsForRedaction {
    static func commandComplete(opcode: UInt16, returnParameters: [UInt8]) -> HCIPacket {
        let parameters = [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returnParameters
        return HCIPacket(type: .event, payload: [0x0E, UInt8(parameters.count)] + parameters)
    }
}
