// MQTT 3.1.1 (OASIS standard, 2014), section 2 (fixed header) and 3 (each packet's layout).

extension MQTTPacket {
    /// The packet type, the fixed header's high nibble.
    var typeNibble: UInt8 {
        switch self {
        case .connect: 1
        case .connAck: 2
        case .publish: 3
        case .pubAck: 4
        case .subscribe: 8
        case .subAck: 9
        case .unsubscribe: 10
        case .unsubAck: 11
        case .pingRequest: 12
        case .pingResponse: 13
        case .disconnect: 14
        }
    }

    /// The packet's bytes on the wire: fixed header, variable header, payload.
    public func encode() throws(MQTTPacketError) -> [UInt8] {
        var body = MQTTByteWriter()
        var flags: UInt8 = 0
        switch self {
        case .connect(let connect):
            try Self.encodeConnect(connect, into: &body)
        case .connAck(let acknowledgement):
            body.byte(acknowledgement.sessionPresent ? 1 : 0)
            body.byte(acknowledgement.returnCode.rawValue)
        case .publish(let publish):
            try Self.validateTopicName(publish.topic)
            flags = (publish.duplicate ? 0x08 : 0) | publish.qos.rawValue << 1 | (publish.retain ? 0x01 : 0)
            try body.string(publish.topic)
            switch publish.qos {
            case .atMostOnce:
                // DUP must be 0 for QoS 0 [MQTT-3.3.1-2]; an identifier would be read as payload.
                guard !publish.duplicate else { throw .invalidFlags(packetType: 3, flags: flags) }
            case .atLeastOnce:
                guard let identifier = publish.packetIdentifier, identifier != 0 else { throw .zeroPacketIdentifier }
                body.uint16(identifier)
            }
            body.bytes.append(contentsOf: publish.payload)
        case .pubAck(let identifier), .unsubAck(let identifier):
            guard identifier != 0 else { throw .zeroPacketIdentifier }
            body.uint16(identifier)
        case .subscribe(let subscribe):
            flags = 0x02
            guard subscribe.packetIdentifier != 0 else { throw .zeroPacketIdentifier }
            guard !subscribe.filters.isEmpty else { throw .emptyTopicList }
            body.uint16(subscribe.packetIdentifier)
            for filter in subscribe.filters {
                try body.string(filter.filter)
                body.byte(filter.qos.rawValue)
            }
        case .subAck(let acknowledgement):
            guard acknowledgement.packetIdentifier != 0 else { throw .zeroPacketIdentifier }
            guard !acknowledgement.returnCodes.isEmpty else { throw .emptyTopicList }
            body.uint16(acknowledgement.packetIdentifier)
            for code in acknowledgement.returnCodes {
                switch code {
                case .granted(let qos):
                    guard qos <= 2 else { throw .invalidSubscribeReturnCode(qos) }
                    body.byte(qos)
                case .failure: body.byte(0x80)
                }
            }
        case .unsubscribe(let unsubscribe):
            flags = 0x02
            guard unsubscribe.packetIdentifier != 0 else { throw .zeroPacketIdentifier }
            guard !unsubscribe.filters.isEmpty else { throw .emptyTopicList }
            body.uint16(unsubscribe.packetIdentifier)
            for filter in unsubscribe.filters { try body.string(filter) }
        case .pingRequest, .pingResponse, .disconnect:
            break
        }
        var bytes: [UInt8] = [typeNibble << 4 | flags]
        try MQTTRemainingLength.encode(body.bytes.count, into: &bytes)
        bytes.append(contentsOf: body.bytes)
        return bytes
    }

    private static func encodeConnect(_ connect: MQTTConnect, into body: inout MQTTByteWriter) throws(MQTTPacketError) {
        try body.string("MQTT")
        body.byte(4)
        var flags: UInt8 = connect.cleanSession ? 0x02 : 0
        if let will = connect.will {
            flags |= 0x04 | will.qos.rawValue << 3 | (will.retain ? 0x20 : 0)
        }
        if connect.username != nil { flags |= 0x80 }
        if connect.password != nil {
            guard connect.username != nil else { throw .invalidConnectFlags(flags | 0x40) }
            flags |= 0x40
        }
        body.byte(flags)
        body.uint16(connect.keepAliveSeconds)
        try body.string(connect.clientIdentifier)
        if let will = connect.will {
            try validateTopicName(will.topic)
            try body.string(will.topic)
            try body.binary(will.payload)
        }
        if let username = connect.username { try body.string(username) }
        if let password = connect.password { try body.binary(password) }
    }

    /// A topic name one publishes to: not empty, no wildcard.
    static func validateTopicName(_ topic: String) throws(MQTTPacketError) {
        guard !topic.isEmpty, !topic.contains("+"), !topic.contains("#") else { throw .invalidTopicName }
    }

    /// Reads one whole packet (fixed header included); `bytes` must hold exactly that packet.
    public static func decode(_ bytes: [UInt8], maximumRemainingLength: Int = 268_435_455) throws(MQTTPacketError) -> MQTTPacket {
        guard let first = bytes.first else { throw .truncated }
        guard let (length, size) = try MQTTRemainingLength.decode(bytes, from: 1) else { throw .truncated }
        guard length <= maximumRemainingLength else { throw .packetTooLarge(declared: length, maximum: maximumRemainingLength) }
        let start = 1 + size
        guard bytes.count - start >= length else { throw .truncated }
        guard bytes.count - start == length else { throw .trailingBytes }
        return try decode(header: first, body: bytes[start...])
    }

    /// Reads a packet from its fixed header's first byte and its body (the remaining-length bytes).
    static func decode(header: UInt8, body: ArraySlice<UInt8>) throws(MQTTPacketError) -> MQTTPacket {
        let type = header >> 4
        let flags = header & 0x0F
        var reader = MQTTByteReader(body)
        func requireFlags(_ expected: UInt8) throws(MQTTPacketError) {
            guard flags == expected else { throw .invalidFlags(packetType: type, flags: flags) }
        }
        switch type {
        case 1:
            try requireFlags(0)
            return .connect(try decodeConnect(&reader))
        case 2:
            try requireFlags(0)
            let acknowledgeFlags = try reader.byte()
            let code = try reader.byte()
            guard acknowledgeFlags & 0xFE == 0 else { throw .invalidConnectReturnCode(acknowledgeFlags) }
            guard let returnCode = MQTTConnectReturnCode(rawValue: code) else { throw .invalidConnectReturnCode(code) }
            try reader.expectEnd()
            return .connAck(MQTTConnAck(sessionPresent: acknowledgeFlags & 1 == 1, returnCode: returnCode))
        case 3:
            return .publish(try decodePublish(flags: flags, &reader))
        case 4, 11:
            try requireFlags(0)
            let identifier = try reader.packetIdentifier()
            try reader.expectEnd()
            return type == 4 ? .pubAck(packetIdentifier: identifier) : .unsubAck(packetIdentifier: identifier)
        case 5, 6, 7:
            throw .unsupportedPacketType(type)
        case 8:
            try requireFlags(2)
            let identifier = try reader.packetIdentifier()
            var filters: [MQTTTopicFilter] = []
            while !reader.isAtEnd {
                let filter = try reader.string()
                let requested = try reader.byte()
                guard let qos = MQTTQoS(rawValue: requested) else { throw .invalidQoS(requested) }
                filters.append(MQTTTopicFilter(filter, qos: qos))
            }
            guard !filters.isEmpty else { throw .emptyTopicList }
            return .subscribe(MQTTSubscribe(packetIdentifier: identifier, filters: filters))
        case 9:
            try requireFlags(0)
            let identifier = try reader.packetIdentifier()
            var codes: [MQTTSubscribeReturnCode] = []
            while !reader.isAtEnd {
                let code = try reader.byte()
                switch code {
                case 0, 1, 2: codes.append(.granted(maximumQoS: code))
                case 0x80: codes.append(.failure)
                default: throw .invalidSubscribeReturnCode(code)
                }
            }
            guard !codes.isEmpty else { throw .emptyTopicList }
            return .subAck(MQTTSubAck(packetIdentifier: identifier, returnCodes: codes))
        case 10:
            try requireFlags(2)
            let identifier = try reader.packetIdentifier()
            var filters: [String] = []
            while !reader.isAtEnd { filters.append(try reader.string()) }
            guard !filters.isEmpty else { throw .emptyTopicList }
            return .unsubscribe(MQTTUnsubscribe(packetIdentifier: identifier, filters: filters))
        case 12, 13, 14:
            try requireFlags(0)
            try reader.expectEnd()
            return type == 12 ? .pingRequest : type == 13 ? .pingResponse : .disconnect
        default:
            throw .unknownPacketType(type)
        }
    }

    private static func decodeConnect(_ reader: inout MQTTByteReader) throws(MQTTPacketError) -> MQTTConnect {
        let name = try reader.string()
        let level = try reader.byte()
        guard name == "MQTT", level == 4 else { throw .unsupportedProtocol(name: name, level: level) }
        let flags = try reader.byte()
        let hasWill = flags & 0x04 != 0
        let willQoSBits = (flags >> 3) & 0x03
        let hasUsername = flags & 0x80 != 0
        let hasPassword = flags & 0x40 != 0
        // Reserved bit zero [MQTT-3.1.2-3]; will QoS and retain only with the will flag; no password without a user name.
        guard flags & 0x01 == 0, hasWill || flags & 0x38 == 0, hasUsername || !hasPassword else { throw .invalidConnectFlags(flags) }
        let keepAlive = try reader.uint16()
        var connect = MQTTConnect(clientIdentifier: "", cleanSession: flags & 0x02 != 0, keepAliveSeconds: keepAlive)
        connect.clientIdentifier = try reader.string()
        if hasWill {
            guard let qos = MQTTQoS(rawValue: willQoSBits) else { throw .invalidQoS(willQoSBits) }
            let topic = try reader.string()
            let payload = try reader.binary()
            connect.will = MQTTLastWill(topic: topic, payload: payload, qos: qos, retain: flags & 0x20 != 0)
        }
        if hasUsername { connect.username = try reader.string() }
        if hasPassword { connect.password = try reader.binary() }
        try reader.expectEnd()
        return connect
    }

    private static func decodePublish(flags: UInt8, _ reader: inout MQTTByteReader) throws(MQTTPacketError) -> MQTTPublish {
        let qosBits = (flags >> 1) & 0x03
        let duplicate = flags & 0x08 != 0
        guard qosBits != 3 else { throw .invalidQoS(3) }
        guard qosBits != 2 else { throw .unsupportedPacketType(3) }
        let qos = MQTTQoS(rawValue: qosBits) ?? .atMostOnce
        guard qos == .atLeastOnce || !duplicate else { throw .invalidFlags(packetType: 3, flags: flags) }
        let topic = try reader.string()
        try validateTopicName(topic)
        let identifier = qos == .atLeastOnce ? try reader.packetIdentifier() : nil
        return MQTTPublish(topic: topic, payload: reader.rest(), qos: qos, retain: flags & 0x01 != 0, duplicate: duplicate, packetIdentifier: identifier)
    }
}
