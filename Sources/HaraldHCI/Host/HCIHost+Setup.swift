import HaraldCodec
import HaraldCore

extension HCIHost {
    /// Events the host asks for: the default set (Encryption Change, bit 7, among them), Encryption
    /// Key Refresh Complete (bit 47) and LE Meta (bit 61).
    public static let eventMask: UInt64 = 0x2000_9FFF_FFFF_FFFF
    /// LE subevents the host asks for: Connection Complete, Advertising Report, Connection Update
    /// Complete, Read Remote Features Complete, Long Term Key Request, Data Length Change, PHY
    /// Update Complete, Extended Advertising Report.
    public static let leEventMask: UInt64 = 0x185F

    /// Resets and configures the controller, in this order: Reset, Read Local Supported Commands,
    /// Read Local Supported Features, Read BD_ADDR, LE Read Local Supported Features, LE Read Buffer
    /// Size (v2 when listed as supported, else v1; Read Buffer Size when LE has no buffers of its
    /// own), Set Event Mask, LE Set Event Mask, LE Set Random Address (a static random address:
    /// Bumble's link drops data sent from a public address; or, with
    /// ``Configuration/privateAddress``, a resolvable private one, rotated from then on), and, when Data Length Extension is
    /// supported, LE Read Maximum Data Length and (if that exceeds 27 bytes) LE Write Suggested
    /// Default Data Length 251.
    ///
    /// Optional reads that a controller refuses leave their field empty; anything essential that
    /// fails throws.
    @discardableResult
    public func setUpController() async throws(HCIError) -> ControllerInfo {
        try await execute(.reset)
        aclFlow.controllerReset(bufferCount: nil)
        let commands = try await executeOptional(.readLocalSupportedCommands).map { Array($0.prefix(64)) } ?? []
        let lmpFeatures = try await executeOptional(.readLocalSupportedFeatures).flatMap(Self.readUInt64) ?? 0
        let addressBytes = try await execute(.readBDADDR)
        let publicAddress = BluetoothAddress(bytes: addressBytes.prefix(6).reversed(), kind: .public) ?? .zero
        let leFeatures = Self.readUInt64(try await execute(.leReadLocalSupportedFeatures)) ?? 0

        var info = ControllerInfo(
            publicAddress: publicAddress, randomAddress: .zero, leFeatures: leFeatures, lmpFeatures: lmpFeatures,
            supportedCommands: commands, aclDataLength: 0, aclPacketCount: 0)
        var buffer: (length: Int, count: Int)?
        if info.supportsCommand(octet: 41, bit: 5), let v2 = try await executeOptional(.leReadBufferSizeV2) {
            buffer = Self.leBufferSize(v2)
        }
        if buffer == nil || buffer?.length == 0 {
            buffer = Self.leBufferSize(try await execute(.leReadBufferSize))
        }
        if buffer == nil || buffer?.length == 0 || buffer?.count == 0 {
            // No LE-only buffers: LE shares the BR/EDR ACL buffers.
            let shared = try await execute(.readBufferSize)
            guard shared.count >= 5 else { throw .unexpectedResponse(.readBufferSize, "short return parameters") }
            buffer = (Int(shared[0]) | Int(shared[1]) << 8, Int(shared[3]) | Int(shared[4]) << 8)
        }
        guard let buffer, buffer.length > 0, buffer.count > 0 else {
            throw .unexpectedResponse(.leReadBufferSize, "the controller reports no ACL buffers")
        }
        info.aclDataLength = buffer.length
        info.aclPacketCount = buffer.count

        try await execute(.setEventMask(Self.eventMask))
        try await execute(.leSetEventMask(Self.leEventMask))
        var generator = SystemRandomNumberGenerator()
        let randomAddress = configuration.privateAddress?.makeAddress() ?? configuration.randomAddress ?? .randomStatic(using: &generator)
        try await execute(.leSetRandomAddress(randomAddress))
        info.randomAddress = randomAddress
        if info.supports(.dataLengthExtension) {
            // A controller may have the feature bit yet send no more than 27 bytes (Bumble's
            // virtual controller does); then no link will take longer packets, and asking for
            // them on each connection only costs a command.
            let maximum = try await executeOptional(.leReadMaximumDataLength).flatMap { $0.count >= 2 ? Int($0[0]) | Int($0[1]) << 8 : nil }
            info.supportedMaxTxOctets = maximum ?? 251
            if info.canExtendDataLength {
                _ = try await executeOptional(.leWriteSuggestedDefaultDataLength(txOctets: 251, txTime: 2120))
            }
        }
        aclFlow.controllerReset(bufferCount: info.aclPacketCount)
        controller = info
        startAddressRotation()
        return info
    }

    /// ``execute(_:)`` for a command the host can do without: nil when the controller refuses it,
    /// answers it oddly or not at all (it is logged); the host closing or a broken transport
    /// still throws.
    func executeOptional(_ command: HCICommand) async throws(HCIError) -> [UInt8]? {
        do {
            return try await execute(command)
        } catch {
            switch error {
            case .commandFailed, .unexpectedResponse, .commandTimedOut:
                logger.debug("optional command \(command.opcode) not available", metadata: ["error": "\(error)"])
                return nil
            default:
                throw error
            }
        }
    }

    static func readUInt64(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count >= 8 else { return nil }
        return bytes.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    /// `[length u16][count u8]…` from LE Read Buffer Size (v1 or v2).
    static func leBufferSize(_ bytes: [UInt8]) -> (length: Int, count: Int)? {
        guard bytes.count >= 3 else { return nil }
        return (Int(bytes[0]) | Int(bytes[1]) << 8, Int(bytes[2]))
    }
}
