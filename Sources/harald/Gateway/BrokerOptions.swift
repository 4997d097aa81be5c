// PLACEHOLDER until the fleet branch's BrokerOptions lands.
import ArgumentParser
import HaraldMQTT

struct BrokerOptions: ParsableArguments {
    @Option var broker: String = "mqtt://127.0.0.1:1883"
    func configuration(clientIdentifier: String) throws -> MQTTClient.Configuration {
        let rest = broker.dropFirst("mqtt://".count)
        let parts = rest.split(separator: ":")
        return MQTTClient.Configuration(host: String(parts[0]), port: parts.count > 1 ? Int(parts[1]) ?? 1883 : 1883, clientIdentifier: clientIdentifier)
    }
}
