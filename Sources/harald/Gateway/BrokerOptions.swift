import ArgumentParser
import Foundation
import HaraldMQTT

/// Where the MQTT broker is and how to log in: `--broker mqtt://HOST[:PORT]` (or `mqtts://` for
/// TLS), `--username`, `--password`, `--ca-file`. Shared by the commands that talk to a broker.
struct BrokerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The MQTT broker: mqtt://HOST[:PORT] (plain, port 1883 by default) or mqtts://HOST[:PORT] (TLS, port 8883 by default).",
            valueName: "URL"))
    var broker: String

    @Option(help: ArgumentHelp("The user name the broker knows this client by (default: the URL's user@, else none).", valueName: "NAME"))
    var username: String?

    @Option(help: ArgumentHelp("The password for --username (default: the URL's user:password@).", valueName: "PASSWORD"))
    var password: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("A PEM file of the certificate authorities trusted for an mqtts:// broker (default: the system's).", valueName: "PATH"))
    var caFile: String?

    /// The parsed `--broker`; a malformed URL is a usage error (exit 64).
    func url() throws -> MQTTBrokerURL {
        do { return try MQTTBrokerURL(parsing: broker) } catch { throw ValidationError("--broker: \(error)") }
    }

    func validate() throws {
        let url = try url()
        if password != nil, username == nil, url.username == nil { throw ValidationError("--password needs a user name: --username NAME or mqtt://NAME@HOST") }
        if let caFile {
            guard url.usesTLS else { throw ValidationError("--ca-file needs a TLS broker: mqtts://HOST[:PORT]") }
            guard FileManager.default.isReadableFile(atPath: caFile) else { throw ValidationError("--ca-file: cannot read '\(caFile)'") }
        }
    }

    /// The MQTT client's configuration for the broker, as `clientIdentifier`.
    func configuration(clientIdentifier: String) throws -> MQTTClient.Configuration {
        try url().configuration(clientIdentifier: clientIdentifier, username: username, password: password, caFile: caFile)
    }

    /// `HOST:PORT` (IPv6 in brackets), for messages.
    var endpoint: String {
        guard let url = try? url() else { return broker }
        return url.host.contains(":") ? "[\(url.host)]:\(url.port)" : "\(url.host):\(url.port)"
    }
}
