import HaraldMQTT
import Testing

/// `--broker` URLs: mqtt:// and mqtts:// with their default ports, and every malformed form refused.
@Suite("Broker URLs")
struct MQTTBrokerURLTests {
    @Test func mqttWithoutAPortIsPlainTCPOn1883() throws {
        let url = try MQTTBrokerURL(parsing: "mqtt://broker.local")
        #expect([url.host, String(url.port), String(url.usesTLS)] == ["broker.local", "1883", "false"])
        #expect(url.username == nil && url.password == nil)
    }

    @Test func mqttsWithoutAPortIsTLSOn8883() throws {
        let url = try MQTTBrokerURL(parsing: "mqtts://broker.local")
        #expect([url.host, String(url.port), String(url.usesTLS)] == ["broker.local", "8883", "true"])
    }

    @Test func anExplicitPortAndATrailingSlashAreTaken() throws {
        #expect(try MQTTBrokerURL(parsing: "mqtt://127.0.0.1:18830/").port == 18830)
    }

    @Test func theSchemeIsReadInAnyCaseAndPahosSpellingsAreSynonyms() throws {
        #expect(try MQTTBrokerURL(parsing: "MQTT://h").usesTLS == false)
        #expect(try MQTTBrokerURL(parsing: "tcp://h").usesTLS == false)
        #expect(try MQTTBrokerURL(parsing: "ssl://h").usesTLS == true)
    }

    @Test func aBracketedIPv6HostIsReadWithoutItsBrackets() throws {
        let url = try MQTTBrokerURL(parsing: "mqtt://[::1]:1884")
        #expect(url.host == "::1")
        #expect(url.port == 1884)
    }

    @Test func credentialsBeforeTheHostAreTaken() throws {
        let url = try MQTTBrokerURL(parsing: "mqtt://hall:s3cret@broker:1883")
        #expect(url.username == "hall")
        #expect(url.password == "s3cret")
        #expect(url.host == "broker")
        let configuration = url.configuration(clientIdentifier: "fleet")
        #expect(configuration.username == "hall")
        #expect(configuration.password == Array("s3cret".utf8))
    }

    @Test func givenCredentialsOverrideTheURLs() throws {
        let configuration = try MQTTBrokerURL(parsing: "mqtt://hall:s3cret@broker").configuration(
            clientIdentifier: "fleet", username: "kitchen", password: "other")
        #expect(configuration.username == "kitchen")
        #expect(configuration.password == Array("other".utf8))
    }

    @Test func theConfigurationUsesTLSOnlyForMqtts() throws {
        #expect(try MQTTBrokerURL(parsing: "mqtts://broker").configuration(clientIdentifier: "fleet").tls != nil)
        let plain = try MQTTBrokerURL(parsing: "mqtt://broker:1999").configuration(clientIdentifier: "fleet")
        #expect(plain.tls == nil)
        #expect(plain.host == "broker")
        #expect(plain.port == 1999)
        #expect(plain.clientIdentifier == "fleet")
    }

    @Test(arguments: [
        "broker.local", "broker:1883", "http://broker", "mqtt:/broker", "mqtt://", "mqtt://:1883", "mqtt://broker:0", "mqtt://broker:65536",
        "mqtt://broker:port", "mqtt://broker:", "mqtt://broker/topic", "mqtt://broker?x=1", "mqtt://[::1", "mqtt://[::1]x", "mqtt://bro ker",
    ])
    func malformedURLsAreRefused(_ text: String) {
        #expect(throws: MQTTBrokerURL.ParseError.self) { try MQTTBrokerURL(parsing: text) }
    }

    @Test func aRefusalSaysWhatIsExpected() {
        #expect(MQTTBrokerURL.ParseError.scheme("broker").description.contains("mqtt://HOST[:PORT]"))
    }
}
