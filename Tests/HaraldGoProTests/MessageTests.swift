import HaraldCodec
import HaraldGoPro
import HaraldTestSupport
import Testing

@Suite("Open GoPro messages")
struct MessageTests {
    // MARK: Requests

    @Test func commandsEncodeAsIDThenLengthValuePairs() throws {
        #expect(try GoProCommand.setShutter(on: true).encoded() == [0x01, 0x01, 0x01])
        #expect(try GoProCommand.setShutter(on: false).encoded() == [0x01, 0x01, 0x00])
        #expect(try GoProCommand.loadPresetGroup(1000).encoded() == [0x3E, 0x02, 0x03, 0xE8])
        #expect(try GoProCommand.getHardwareInfo.encoded() == [0x3C])
        #expect(try GoProCommand.getOpenGoProVersion.encoded() == [0x51])
    }

    @Test func aParameterAbove255BytesCannotBeEncoded() {
        #expect(throws: ByteEncodingError.self) {
            try GoProCommand(.setDateTime, parameters: [[UInt8](repeating: 0, count: 256)]).encoded()
        }
    }

    @Test func settingsEncodeAsIDLengthValue() throws {
        #expect(try GoProSettingRequest(.videoResolution, value: 9).encoded() == [0x02, 0x01, 0x09])
        #expect(try GoProSettingRequest(.framesPerSecond, value: 0).encoded() == [0x03, 0x01, 0x00])
    }

    @Test func theKeepAliveIsSetting91WithValue0x42() throws {
        #expect(try GoProSettingRequest.keepAlive.encoded() == [0x5B, 0x01, 0x42])
    }

    @Test func queriesEncodeAsIDThenElementIDs() {
        #expect(GoProQuery.getSettingValues([.videoResolution, .framesPerSecond, .videoLens]).encoded() == [0x12, 0x02, 0x03, 0x79])
        #expect(GoProQuery.getStatusValues().encoded() == [0x13])
        #expect(GoProQuery.getSettingValues().encoded() == [0x12])
        #expect(GoProQuery.registerSettingValueUpdates([.videoResolution]).encoded() == [0x52, 0x02])
        #expect(GoProQuery.registerStatusValueUpdates([.encoding, .busy]).encoded() == [0x53, 0x0A, 0x08])
        #expect(GoProQuery.unregisterStatusValueUpdates([.encoding]).encoded() == [0x73, 0x0A])
        #expect(GoProQuery.getSettingCapabilities().encoded() == [0x32])
        #expect(GoProQuery.registerSettingCapabilityUpdates([.videoResolution]).encoded() == [0x62, 0x02])
        #expect(GoProQuery.unregisterSettingValueUpdates([.videoResolution]).encoded() == [0x72, 0x02])
        #expect(GoProQuery.unregisterSettingCapabilityUpdates([.videoResolution]).encoded() == [0x82, 0x02])
    }

    // MARK: Responses

    @Test func aCommandResponseCarriesIDStatusAndPayload() throws {
        let response = try GoProResponse(message: [0x51, 0x00, 0x01, 0x02, 0x01, 0x00])
        #expect(response.commandID == .getOpenGoProVersion)
        #expect(response.status == .success)
        #expect(Array(response.payload) == [0x01, 0x02, 0x01, 0x00])
    }

    @Test func statusCodesOutsideTheKnownThreeAreKeptRaw() throws {
        #expect(try GoProResponse(message: [0x01, 0x01]).status == .error)
        #expect(try GoProResponse(message: [0x01, 0x02]).status == .invalidParameter)
        let reserved = try GoProResponse(message: [0x01, 0x07]).status
        #expect(reserved.rawValue == 7)
        #expect(!reserved.isSuccess)
        #expect(reserved.description == "reserved(7)")
    }

    @Test func aResponseNeedsIDAndStatus() {
        #expect(throws: ByteDecodingError.self) { try GoProResponse(message: [0x01]) }
        #expect(throws: ByteDecodingError.self) { try GoProResponse(message: []) }
        #expect(throws: ByteDecodingError.self) { try GoProQueryResponse(message: [0x13]) }
    }

    @Test func theOpenGoProVersionIsMajorAndMinor() throws {
        let response = try GoProResponse(message: [0x51, 0x00, 0x01, 0x02, 0x01, 0x00])
        let version = try GoProOpenGoProVersion(response: response)
        #expect(version == GoProOpenGoProVersion(major: 2, minor: 0))
        #expect(version.description == "2.0")
    }

    @Test func aVersionPartOfSevenBytesIsRead() throws {
        let version = try GoProOpenGoProVersion(payload: [0x07, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00])
        #expect(version == GoProOpenGoProVersion(major: 0x7F_FFFF_FFFF_FFFF, minor: 0))
    }

    @Test func aVersionPartOfEightBytesIsRejected() {
        #expect(throws: ByteDecodingError.self) {
            try GoProOpenGoProVersion(payload: [0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00])
        }
    }

    @Test func anEmptyVersionPartIsRejected() {
        #expect(throws: ByteDecodingError.self) { try GoProOpenGoProVersion(payload: [0x00, 0x01, 0x00]) }
    }

    @Test func aVersionResponseWithAnotherIDOrAFailureIsRejected() throws {
        #expect(throws: ByteDecodingError.self) { try GoProOpenGoProVersion(response: GoProResponse(message: [0x3C, 0x00, 0x01, 0x02, 0x01, 0x00])) }
        #expect(throws: ByteDecodingError.self) { try GoProOpenGoProVersion(response: GoProResponse(message: [0x51, 0x01])) }
        #expect(throws: ByteDecodingError.self) { try GoProOpenGoProVersion(payload: [0x01, 0x02, 0x01]) }
    }

    @Test func hardwareInfoFieldsAreReadFromTheTutorialStream() throws {
        let vector = try #require(GoProVectors.decodable.first { $0.packets.count == 6 })
        let (messages, _) = try reassemble(vector.packetBytes)
        let info = try GoProHardwareInfo(response: GoProResponse(message: try #require(messages.first)))
        #expect(info.modelNumber == 62)
        #expect(info.modelName == "HERO12 Black")
        #expect(info.boardType == "0x05")
        #expect(info.firmwareVersion == "H23.01.01.99.56")
        #expect(info.serialNumber == "C3501324500702")
        #expect(info.accessPointSSID == "HERO12 Blackdebug")
        #expect(info.accessPointMAC == "2674f7f66104")
        #expect(info.reserved == [0x01, 0x00, 0x01, 0x01, 0x01, 0x00, 0x02, 0x5B, 0x5D, 0x01, 0x01])
    }

    @Test func aCutShortHardwareInfoIsRejected() {
        #expect(throws: ByteDecodingError.self) {
            try GoProHardwareInfo(response: GoProResponse(message: [0x3C, 0x00, 0x04, 0x00, 0x00, 0x00, 0x3E, 0x0C, 0x48]))
        }
    }

    // MARK: Query responses and the TLV walker

    @Test func theAllStatusesResponseHasEightyEightTypedValues() throws {
        let (messages, _) = try reassemble(AllStatusesStream.packets)
        let response = try GoProQueryResponse(message: try #require(messages.first))
        #expect(response.queryID == .getStatusValues)
        #expect(response.status == .success)
        let values = response.values
        #expect(values.count == 88)
        #expect(values.bool(.batteryPresent) == true)
        #expect(values.integer(.internalBatteryBars) == 4)
        #expect(values.integer(21) == 16036)
        #expect(values[.connectedWiFiSSID] == [])
        #expect(values.string(.accessPointSSID) == "GP24500456")
        #expect(values.string(40) == "%1B%04%06%07%31%0D")
        #expect(values.integer(.remainingSpace) == 26_575_456)
        #expect(values.integer(.minimumStatusPollPeriod) == 500)
        #expect(values.integer(.internalBatteryPercentage) == 53)
        #expect(values[107] == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(values.signedInteger(107) == -1)
        #expect(values[5] == nil)
        #expect(!values.contains(5))
    }

    @Test func valuesKeepMessageOrderAndTheDictionaryKeepsTheLastRepeat() throws {
        let values = try GoProValues(bytes: [0x02, 0x01, 0x09, 0x03, 0x00, 0x02, 0x01, 0x04])
        #expect(values.map(\.id) == [2, 3, 2])
        #expect(values[2] == [0x04])
        #expect(values.dictionary == [2: [0x04], 3: []])
        #expect(values.ids == [2, 3])
    }

    @Test func aCutShortTripletIsRejected() {
        #expect(throws: ByteDecodingError.self) { try GoProQueryResponse(message: [0x12, 0x00, 0x02]) }
        #expect(throws: ByteDecodingError.self) { try GoProQueryResponse(message: [0x12, 0x00, 0x02, 0x02, 0x09]) }
    }

    @Test func typedAccessorsRefuseValuesOfTheWrongShape() throws {
        let values = try GoProValues(bytes: [0x01, 0x02, 0x00, 0x01, 0x02, 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x03, 0x01, 0xC3])
        #expect(values.bool(1) == nil)
        #expect(values.integer(2) == nil)
        #expect(values.string(3) == nil)
    }

    @Test func pushesAreRecognisedByTheirQueryID() throws {
        let setting = try GoProPush(message: [0x92, 0x00, 0x02, 0x01, 0x04])
        guard case let .settingValues(values) = setting else { Issue.record("\(setting)"); return }
        #expect(values.integer(.videoResolution) == 4)
        let status = try GoProPush(message: [0x93, 0x00, 0x0A, 0x01, 0x01])
        guard case .statusValues = status else { Issue.record("\(status)"); return }
        #expect(status.values.bool(.encoding) == true)
        let capability = try GoProPush(message: [0xA2, 0x00, 0x02, 0x00, 0x03, 0x00, 0x79, 0x00])
        guard case .settingCapabilities = capability else { Issue.record("\(capability)"); return }
        #expect(capability.values.map(\.id) == [2, 3, 121])
    }

    @Test func aQueryResponseThatIsNotAPushIsRefusedAsOne() throws {
        #expect(throws: ByteDecodingError.self) { try GoProPush(message: [0x12, 0x00, 0x02, 0x01, 0x09]) }
        #expect(GoProPush(try GoProQueryResponse(message: [0x52, 0x00])) == nil)
    }

    // MARK: IDs

    @Test func knownIDsHaveNamesAndUnknownOnesAreKeptRaw() {
        #expect(GoProStatusID.internalBatteryPercentage.rawValue == 70)
        #expect(GoProStatusID(70).name == "internalBatteryPercentage")
        #expect(GoProStatusID(250).name == nil)
        #expect(GoProStatusID(250).description == "status 250")
        #expect(GoProSettingID(2) == .videoResolution)
        #expect(GoProSettingID(2).name == "videoResolution")
        #expect(GoProCommandID(0x3C).name == "Get Hardware Info")
        #expect(GoProQueryID(0x93).isPush)
        #expect(!GoProQueryID(0x53).isPush)
    }
}
