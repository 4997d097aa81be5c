import ArgumentParser
import HaraldCodec
import HaraldGoPro
import HaraldProfiles

/// `harald gopro decode [--from GP-0073|GP-0075|GP-0077] PACKET_HEX…`: reassembles consecutive
/// notifications of one response characteristic and prints the complete messages as one JSON
/// array: `{"id", "status", "values": [{"id", "value"}…]}` per query response (GP-0077),
/// `{"id", "status", "payload"}` otherwise; hex after ID and status.
///
/// Exit status: 0 decoded; 64 unknown `--from`; 65 malformed hex, a malformed packet stream
/// (including one that ends mid-message) or a malformed query response. On failure stdout stays
/// empty and stderr gets one line `error: …`.
struct GoProDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Reassemble Open GoPro notifications and print the messages as JSON.",
        discussion: """
            Each PACKET_HEX is one notification on the --from characteristic, in order. Exit status: \
            0 decoded, 64 unknown characteristic, 65 malformed hex, packets or messages (a stream that \
            ends mid-message included).
            """)

    @Option(name: .long, help: "The response characteristic: GP-0073 (commands), GP-0075 (settings) or GP-0077 (queries).")
    var from = "GP-0073"

    @Argument(help: "The notifications' bytes in hex, one argument per packet.")
    var packets: [String] = []

    func run() throws {
        let allowed: [GoProCharacteristic] = [.commandResponse, .settingsResponse, .queryResponse]
        guard let characteristic = GoProCharacteristic(from), allowed.contains(characteristic) else {
            GoPro.fail("'\(from)' is not a response characteristic (GP-0073, GP-0075 or GP-0077)", status: GoPro.usageError)
        }
        var assembler = GoProMessageAssembler()
        var messages: [JSONValue] = []
        for (index, text) in packets.enumerated() {
            let packet: [UInt8]
            do {
                packet = try Hex.decode(text)
            } catch {
                GoPro.fail("packet \(index + 1): malformed hex: \(error)", status: GoPro.dataError)
            }
            do {
                if let message = try assembler.append(packet) {
                    messages.append(try Self.describe(message, from: characteristic))
                }
            } catch let error as GoProPacketError {
                GoPro.fail("packet \(index + 1): \(error)", status: GoPro.dataError)
            } catch {
                GoPro.fail("message ending at packet \(index + 1): \(error)", status: GoPro.dataError)
            }
        }
        if let announced = assembler.announcedLength {
            GoPro.fail(
                "the packets end mid-message (\(assembler.receivedCount) of \(announced) bytes received)",
                status: GoPro.dataError)
        }
        print(JSONValue.array(messages).jsonText)
    }

    /// One complete message as JSON.
    static func describe(_ message: [UInt8], from characteristic: GoProCharacteristic) throws(ByteDecodingError) -> JSONValue {
        if characteristic == .queryResponse {
            let response = try GoProQueryResponse(message: message)
            return .object([
                "id": .int(response.queryID.rawValue),
                "status": .int(response.status.rawValue),
                "values": .array(response.values.map { .object(["id": .int($0.id), "value": .string(Hex.encode($0.value))]) }),
            ])
        }
        let response = try GoProResponse(message: message)
        return .object([
            "id": .int(response.id),
            "status": .int(response.status.rawValue),
            "payload": .string(Hex.encode(response.payload)),
        ])
    }
}
