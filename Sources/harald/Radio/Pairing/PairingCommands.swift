import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldProfiles

/// `harald pair ADDRESS`: connect, pair, store the bond, say what came of it.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Connect to a device, pair with it and store the bond.",
        discussion: """
            Pairs afresh even when a bond with the device is stored (the new bond replaces it once pairing succeeds, \
            even when it is weaker: running pair is the person's consent; the other commands never let a weaker pairing \
            replace a bond). \
            Prints the pairing method, the security level (1–4, LE Secure Connections or legacy), the key size, whether the keys were kept (bonded) and the \
            device's identity address. The other radio commands pair on their own when a device refuses a request for \
            lack of encryption, and re-encrypt with the stored bond on later connections. With --passkey the passkey is \
            answered without asking; without it, pairing asks on the terminal when the device shows one (and fails when \
            stdin is not a terminal). Where this side displays, the passkey to type on the device is printed on stderr: \
            a fresh random one on every pairing (--fixed-passkey N shows N instead, with a warning: a passkey shown twice \
            is no secret). Each pairing step must be answered within the SMP timeout (30 s). \
            The sim transport does not pair yet.
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions

    func validate() throws {
        _ = try AddressArgument(device.address, addressType: device.addressType)
    }

    func run() async throws {
        let transport = try radio.transportChoice()
        guard transport.pairs else { Output.fail(transport.noPairingMessage) }
        let (json, device) = (radio.json, self.device)
        try await RadioSession.run(radio) { central, session in
            guard let session else { throw BluetoothError.unsupported("pairing on this transport") }
            // The person asked to pair afresh: the new bond may replace the stored one, even a
            // stronger one (other commands never let a weaker pairing replace a bond).
            session.agent.allowBondReplacement()
            let connection = try await device.connect(central)
            // Each pairing step has the SMP timeout (30 s), time enough for a person to type.
            let security = try await connection.pair()
            let outcome = await session.outcome()
            await connection.disconnect()
            let bond = outcome.storedBond
            let secureConnections: Bool? =
                bond?.isSecureConnections ?? (security.level == .authenticatedSecureConnections ? true : nil)
            let method = [secureConnections.map { $0 ? "LE Secure Connections" : "LE legacy" }, outcome.model].compactMap(\.self)
            let keySize = security.keySize ?? bond?.keySize
            let report = SecurityReport(security: security, bond: bond)
            if json {
                Output.json(
                    .fields([
                        "address": .string(device.address.uppercased()),
                        "method": outcome.model.map(JSONValue.string), "secureConnections": secureConnections.map(JSONValue.bool),
                        "level": .string(security.level.jsonName), "keySize": keySize.map { JSONValue.int($0) },
                        "bonded": .bool(bond != nil), "identityAddress": bond.map { .string($0.identityAddress.string) },
                        "identityAddressType": bond.map { .string($0.identityAddress.kind.description) },
                        "bonds": bond.map { _ in .string(session.fileURL.path) }, "security": report.json,
                    ]))
            } else {
                Output.line("paired with \(device.address.uppercased())")
                Output.line("  method: \(method.isEmpty ? "unknown" : method.joined(separator: ", "))")
                Output.line("  security: \(report.text)")
                Output.line("  key size: \(keySize.map { "\($0 * 8) bits" } ?? "unknown")")
                if let bond {
                    Output.line("  bonded: yes, identity \(bond.identityAddress.string) (\(bond.identityAddress.kind)), stored in \(session.fileURL.path)")
                } else {
                    Output.line("  bonded: no (the device did not bond; nothing was stored)")
                }
            }
        }
    }
}

extension SecurityLevel {
    /// The level's name in JSON output.
    var jsonName: String {
        switch self {
        case .none: "none"
        case .encrypted: "encrypted"
        case .authenticated: "authenticated"
        case .authenticatedSecureConnections: "authenticated-secure-connections"
        }
    }
}

/// `harald bonds list|remove`: the bond file, without a radio.
struct BondsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List or remove stored bonds (never prints keys).",
        subcommands: [List.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the stored bonds: addresses, security and which keys are kept, never the keys.")

        @OptionGroup var bondFile: BondFileOptions
        @Flag(help: "Print one JSON object per bond instead of a table.") var json = false

        func run() async throws {
            let url = try bondFile.fileURL()
            let bonds: [Bond]
            do { bonds = try await FileBondStore(fileURL: url).allBonds() } catch { Output.fail(error.description) }
            if json {
                for bond in bonds { Output.json(bond.jsonSummary) }
                return
            }
            guard !bonds.isEmpty else {
                Output.line("no bonds in \(url.path)")
                return
            }
            let rows = [["ADDRESS", "TYPE", "LAST SEEN AS", "SECURITY", "KEY", "KEYS", "CREATED"]] + bonds.map(\.tableRow)
            let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
                Output.line(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget the bond of a device (by its identity address, or the address it was last seen at).")

        @Argument(help: "Device address (F0:F1:F2:F3:F4:F5).") var address: String
        @Option(help: "public or random; when omitted, a bond under either type is removed.") var addressType: String?
        @OptionGroup var bondFile: BondFileOptions
        @Flag(help: "Print JSON instead of text.") var json = false

        func validate() throws {
            _ = try AddressArgument(address, addressType: addressType)
        }

        func run() async throws {
            let target = try AddressArgument(address, addressType: addressType)
            let url = try bondFile.fileURL()
            let store = FileBondStore(fileURL: url)
            let wanted = address.uppercased()
            var removed: [Bond] = []
            do {
                for bond in try await store.allBonds() {
                    let named = [bond.identityAddress, bond.lastAddress].contains { candidate in
                        candidate.string == wanted && (target.kind == nil || candidate.kind == target.kind)
                    }
                    if named, let gone = try await store.removeBond(for: bond.identityAddress) { removed.append(gone) }
                }
            } catch {
                Output.fail(error.description)
            }
            guard !removed.isEmpty else { Output.fail("no bond for \(wanted) in \(url.path)") }
            for bond in removed {
                if json {
                    Output.json(.fields(["removed": .string(bond.identityAddress.string), "addressType": .string(bond.identityAddress.kind.description)]))
                } else {
                    Output.line("removed the bond of \(bond.identityAddress.string) (\(bond.identityAddress.kind)) from \(url.path)")
                }
            }
        }
    }
}

extension Bond {
    /// The names of the keys kept (never their values).
    var keyNames: [String] {
        [
            longTermKey.map { _ in "LTK" }, localLongTermKey.map { _ in "local LTK" }, peerIdentityResolvingKey.map { _ in "IRK" },
            peerSignatureKey.map { _ in "CSRK" }, localSignatureKey.map { _ in "local CSRK" },
        ].compactMap(\.self)
    }

    /// `harald bonds list --json`: addresses, security, sizes and key names; no key material.
    var jsonSummary: JSONValue {
        .fields([
            "address": .string(identityAddress.string), "addressType": .string(identityAddress.kind.description),
            "lastAddress": .string(lastAddress.string), "lastAddressType": .string(lastAddress.kind.description),
            "level": .string(securityLevel.jsonName), "keySize": .int(keySize), "authenticated": .bool(isAuthenticated),
            "secureConnections": .bool(isSecureConnections), "keys": .array(keyNames.map(JSONValue.string)),
            "created": .string(createdAt.formatted(.iso8601)), "peerRejectedKey": .bool(peerRejectedKey),
        ])
    }

    var tableRow: [String] {
        [
            identityAddress.string, identityAddress.kind.description,
            lastAddress == identityAddress ? "-" : "\(lastAddress.string) (\(lastAddress.kind))",
            "\(securityLevel)" + (isSecureConnections ? "" : ", legacy") + (peerRejectedKey ? ", key rejected by the peer" : ""),
            "\(keySize * 8)-bit",
            keyNames.isEmpty ? "-" : keyNames.joined(separator: ","), createdAt.formatted(.iso8601),
        ]
    }
}
