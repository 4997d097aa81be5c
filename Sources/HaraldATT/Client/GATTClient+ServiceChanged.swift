import HaraldCodec
import HaraldCore

/// Finding the server's Service Changed characteristic and turning its indications on (Core spec
/// Vol 3 Part G §7.1), with as few requests as the spec allows.
extension GATTClient {
    /// The server's Service Changed characteristic, or nil when it has none (or one without a
    /// Client Characteristic Configuration descriptor). Usually two requests:
    ///
    /// 1. Read Using Characteristic UUID (§4.8.2): Read By Type 0x2A05 over 0x0001–0xFFFF. The
    ///    server answers with the value handle, or — since the value is not readable — with an
    ///    Error Response that names it (the first matching attribute's error is the answer, Core
    ///    spec Vol 3 Part F §3.4.4.1); Attribute Not Found means there is none.
    /// 2. Find Information from the handle after the value: the CCCD is among the descriptors
    ///    that follow it, before the next declaration. Usually the first response shows it.
    ///
    /// Cheaper than discovering the Generic Attribute service's characteristics and descriptors,
    /// and it needs no service discovery first.
    public func findServiceChanged(timeout: Duration? = nil) async throws(GATTError) -> GATTServiceChangedHandles? {
        try await findServiceChanged(deadline: deadline(timeout))
    }

    /// Finds the Service Changed characteristic (``findServiceChanged(timeout:)``) and enables
    /// its indications with one CCCD write, so this client acts on them from then on (see the
    /// type's discipline). Returns what it found, or nil when the server has no Service Changed
    /// characteristic (no request is then written). When the CCCD write fails, the error is
    /// thrown and nothing is watched.
    @discardableResult
    public func watchServiceChanged(timeout: Duration? = nil) async throws(GATTError) -> GATTServiceChangedHandles? {
        let deadline = deadline(timeout)
        guard let found = try await findServiceChanged(deadline: deadline) else { return nil }
        // Watched before the write goes out: the server may indicate right after its response.
        watchedServiceChanged = found
        do {
            _ = try await transact(
                ATTWriteRequest(handle: found.cccdHandle, value: ClientCharacteristicConfiguration.indications.bytes),
                expecting: ATTWriteResponse.self, deadline: deadline)
        } catch {
            if watchedServiceChanged == found { watchedServiceChanged = nil }
            throw error
        }
        return found
    }

    private func findServiceChanged(deadline: Duration) async throws(GATTError) -> GATTServiceChangedHandles? {
        let valueHandle: UInt16
        do {
            let response = try await transact(
                ATTReadByTypeRequest(range: .all, attributeType: GATTGenericAttributeService.serviceChanged),
                expecting: ATTReadByTypeResponse.self, deadline: deadline)
            valueHandle = response.entries.first?.handle ?? 0
        } catch .attribute(.attributeNotFound, _, _) {
            return nil
        } catch .attribute(let code, let handle, _) where Self.refusesReading(code) && handle != 0 {
            valueHandle = handle
        }
        guard valueHandle > 1 else { throw .invalidResponse("Service Changed value at handle 0x\(Hex.word(valueHandle))") }
        // Descriptors follow the value; the next declaration ends the characteristic.
        var next = Int(valueHandle) + 1
        while next <= 0xFFFF {
            let response: ATTFindInformationResponse
            do {
                response = try await transact(
                    ATTFindInformationRequest(range: ATTHandleRange(start: UInt16(next), end: 0xFFFF)),
                    expecting: ATTFindInformationResponse.self, deadline: deadline)
            } catch .attribute(.attributeNotFound, _, _) {
                return nil
            }
            for entry in response.entries {
                guard Int(entry.handle) >= next else { throw .invalidResponse("descriptor handle \(entry.handle) before \(next)") }
                if entry.type == GATTAttributeType.clientCharacteristicConfiguration {
                    return GATTServiceChangedHandles(valueHandle: valueHandle, cccdHandle: entry.handle)
                }
                if Self.declarations.contains(entry.type) { return nil }
                next = Int(entry.handle) + 1
            }
        }
        return nil
    }

    /// The attribute types that start a service or a characteristic.
    private static let declarations: Set<BluetoothUUID> = [
        GATTAttributeType.primaryService, GATTAttributeType.secondaryService, GATTAttributeType.include, GATTAttributeType.characteristic,
    ]

    /// Error codes with which a server refuses to read an attribute it has: its Error Response
    /// names the attribute.
    private static func refusesReading(_ code: ATTErrorCode) -> Bool {
        [.readNotPermitted, .insufficientAuthentication, .insufficientAuthorization, .insufficientEncryption, .encryptionKeySizeTooShort]
            .contains(code)
    }
}
