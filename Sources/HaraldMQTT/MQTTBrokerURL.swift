import NIOSSL

/// A broker's address as a URL: `mqtt://HOST[:PORT]` (plain TCP, port 1883 by default) or
/// `mqtts://HOST[:PORT]` (TLS, port 8883 by default); `tcp://` and `ssl://` / `tls://` are read as
/// their synonyms (paho's spelling). The host may be a name, an IPv4 address or a bracketed IPv6
/// address (`mqtt://[::1]:1883`); `user[:password]@` before it sets the credentials. A path of
/// `/` alone is allowed; any other path, a query or a fragment is not.
public struct MQTTBrokerURL: Hashable, Sendable {
    /// The broker's host name or address (an IPv6 address without its brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// Whether the connection uses TLS (`mqtts://`).
    public var usesTLS: Bool
    /// The user name given in the URL, if any.
    public var username: String?
    /// The password given in the URL, if any.
    public var password: String?

    /// Why a text is not a broker URL; the description says what is expected.
    public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The scheme is missing or is not mqtt, mqtts, tcp, ssl or tls.
        case scheme(String)
        /// There is no host.
        case host(String)
        /// The port is not a number within 1…65535.
        case port(String)
        /// A path (other than `/`), a query or a fragment follows the address.
        case trailing(String)

        public var description: String {
            switch self {
            case let .scheme(text): "'\(text)' is not a broker URL: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
            case let .host(text): "'\(text)' names no broker host: expected mqtt://HOST[:PORT]"
            case let .port(text): "'\(text)' has no valid port: expected a number within 1…65535"
            case let .trailing(text): "'\(text)' has a path, query or fragment: a broker URL is mqtt://HOST[:PORT]"
            }
        }
    }

    /// The default port for plain TCP.
    public static let plainPort = 1883
    /// The default port for TLS.
    public static let tlsPort = 8883

    /// Parses `text`; throws ``ParseError`` when it is not a broker URL.
    public init(parsing text: String) throws(ParseError) {
        var characters = Substring(text)
        while characters.first?.isWhitespace == true { characters.removeFirst() }
        while characters.last?.isWhitespace == true { characters.removeLast() }
        let parts = characters.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .scheme(text) }
        switch parts[0].lowercased() {
        case "mqtt", "tcp": usesTLS = false
        case "mqtts", "ssl", "tls": usesTLS = true
        default: throw .scheme(text)
        }
        var rest = parts[1]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains(where: { "/?#".contains($0) }) else { throw .trailing(text) }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = String(credentials[..<colon])
                password = String(credentials[credentials.index(after: colon)...])
            } else {
                username = String(credentials)
            }
            if username?.isEmpty == true { username = nil }
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .host(text) }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .host(text) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = String(rest[..<colon])
            portText = rest[rest.index(after: colon)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { throw .host(text) }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else { throw .port(text) }
            self.port = port
        } else {
            port = usesTLS ? Self.tlsPort : Self.plainPort
        }
    }

    /// A client configuration for this broker: its host and port, TLS (trusting the system's
    /// certificate authorities, or only those in the PEM file at `caFile`) when the URL says
    /// so, and the credentials: `username` or else the URL's user, `password` or else the URL's
    /// password when the user is the URL's.
    public func configuration(
        clientIdentifier: String, username: String? = nil, password: String? = nil, caFile: String? = nil
    ) -> MQTTClient.Configuration {
        var tls: TLSConfiguration?
        if usesTLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile { configuration.trustRoots = .file(caFile) }
            tls = configuration
        }
        let user = username ?? self.username
        let secret = password ?? (username == nil ? self.password : nil)
        return MQTTClient.Configuration(
            host: host, port: port, clientIdentifier: clientIdentifier, username: user, password: user == nil ? nil : secret.map { Array($0.utf8) },
            tls: tls)
    }
}
