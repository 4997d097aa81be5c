import ArgumentParser
import HaraldCodec
import HaraldGoPro
import HaraldProfiles

/// `harald gopro fragment MESSAGE_HEX [--packet-size N]`: the packets that carry a message to
/// the camera (Extended 13-bit header, continuation counter), as one JSON array of hex strings.
///
/// Exit status: 0; 64 packet size below 3; 65 malformed hex or a message above 8191 bytes.
struct GoProFragment: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fragment",
        abstract: "Split an Open GoPro message into packets and print them as a JSON array of hex.",
        discussion: "Exit status: 0, 64 packet size below 3, 65 malformed hex or message longer than 8191 bytes.")

    @Option(name: .long, help: "Largest packet in bytes: 20 (the default) or ATT_MTU − 3.")
    var packetSize = GoProFragmenter.defaultPacketSize

    @Argument(help: "The message's bytes in hex (several words are joined).")
    var message: [String] = []

    func run() throws {
        guard packetSize >= 3 else { GoPro.fail("packet size \(packetSize) is below 3", status: GoPro.usageError) }
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(message.joined(separator: " "))
        } catch {
            GoPro.fail("malformed hex message: \(error)", status: GoPro.dataError)
        }
        do {
            let packets = try GoProFragmenter.fragment(bytes, packetSize: packetSize)
            print(JSONValue.array(packets.map { .string(Hex.encode($0)) }).jsonText)
        } catch {
            GoPro.fail("\(error)", status: GoPro.dataError)
        }
    }
}
