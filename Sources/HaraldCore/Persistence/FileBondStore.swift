import Foundation

/// Bonds kept in one JSON file that only the user can read.
///
/// The file is read on first use and kept in memory; every change writes the whole file anew:
/// into a temporary file created with mode 0600 in the same directory, flushed to disk (`fsync`),
/// then renamed over the old one, so a crash leaves either the old file or the new one. The
/// directory is created with mode 0700 when missing (an existing directory keeps its mode). One
/// process should own a bond file: the store takes no file lock and does not notice changes made
/// by others after its first read.
///
/// A file that cannot be read, is corrupt, or comes from a newer schema makes every operation
/// throw and is never rewritten: overwriting it would silently forget every bond (and our
/// identity), and a corrupt file may be the only copy of keys that can still be recovered by
/// hand. Move it aside to start afresh.
///
/// A file whose mode has any group or other bit (readable or writable by someone else) is
/// refused by default with ``BondStoreError/insecurePermissions(path:mode:)``, before a byte of
/// it is read, like `ssh` refuses a private key others can read: the keys in it may already have
/// leaked or been replaced, and a person should look before Harald trusts them again. An app
/// that prefers to carry on can pass ``PermissionPolicy/repair(_:)``: the file is then restricted
/// to 0600 and the closure is told, so it can warn.
///
/// See `BondFile` for the format. Descriptions and mirrors show the path, never the bonds.
public actor FileBondStore: BondStore, CustomStringConvertible, CustomReflectable {
    /// The bond file.
    public nonisolated let fileURL: URL
    private let resolver: PrivateAddressResolver?
    /// The file's contents after the last successful read or write; nil until then.
    private var table: BondTable?
    /// Counts saves and removals made through this store (``revision()``).
    private var changes: UInt64 = 0
    private let permissionPolicy: PermissionPolicy

    /// What the store does with a bond file that other users may read or change (any group or
    /// other permission bit).
    public enum PermissionPolicy: Sendable {
        /// Refuse it: every operation throws ``BondStoreError/insecurePermissions(path:mode:)``
        /// and the file is left as it is. The default.
        case refuse
        /// Restrict it to 0600 and go on; the closure gets the mode the file had (to warn that its
        /// keys may have been read).
        case repair(@Sendable (_ path: String, _ formerMode: UInt16) -> Void)
    }

    /// A store on `fileURL`, resolving private addresses with `resolver` (without one, only
    /// identity addresses find a bond). Nothing is read or written until the first operation.
    /// `permissions` says what to do with a file that others may read (refused by default).
    public init(fileURL: URL, resolver: PrivateAddressResolver? = nil, permissions: PermissionPolicy = .refuse) {
        self.fileURL = fileURL
        self.resolver = resolver
        self.permissionPolicy = permissions
    }

    /// A store on ``defaultFileURL(environment:)``.
    public init(resolver: PrivateAddressResolver? = nil) throws(BondStoreError) {
        self.init(fileURL: try Self.defaultFileURL(), resolver: resolver)
    }

    /// Where bonds live by default: `$XDG_CONFIG_HOME/harald/bonds.json`, else
    /// `$HOME/.config/harald/bonds.json` (a relative `XDG_CONFIG_HOME` is ignored, as the XDG
    /// spec says); on Apple platforms `Application Support/Harald/bonds.json`.
    public static func defaultFileURL(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BondStoreError) -> URL {
        #if canImport(Darwin)
        guard let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else {
            throw .noDefaultLocation
        }
        return support.appendingPathComponent("Harald", isDirectory: true).appendingPathComponent("bonds.json")
        #else
        let config: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            config = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
        } else {
            throw .noDefaultLocation
        }
        return config.appendingPathComponent("harald", isDirectory: true).appendingPathComponent("bonds.json")
        #endif
    }

    // MARK: BondStore

    public func bond(for identity: BluetoothAddress) throws(BondStoreError) -> Bond? {
        try load().bonds[identity]
    }

    public func bond(resolving address: BluetoothAddress) throws(BondStoreError) -> Bond? {
        try load().bond(resolving: address, with: resolver)
    }

    public func save(_ bond: Bond) throws(BondStoreError) {
        var table = try load()
        table.bonds[bond.identityAddress] = bond
        try write(table)
        changes &+= 1
    }

    @discardableResult
    public func removeBond(for identity: BluetoothAddress) throws(BondStoreError) -> Bond? {
        var table = try load()
        guard let removed = table.bonds.removeValue(forKey: identity) else { return nil }
        try write(table)
        changes &+= 1
        return removed
    }

    /// Changes with every save and removal through this store (not with edits to the file by
    /// another process).
    public func revision() -> UInt64? { changes }

    public func allBonds() throws(BondStoreError) -> [Bond] {
        try load().sortedBonds
    }

    public func localIdentity() throws(BondStoreError) -> LocalIdentity? {
        try load().localIdentity
    }

    public func setLocalIdentity(_ identity: LocalIdentity?) throws(BondStoreError) {
        var table = try load()
        table.localIdentity = identity
        try write(table)
    }

    /// The path; never the bonds.
    public nonisolated var description: String { "FileBondStore(\(fileURL.path))" }
    /// The path only.
    public nonisolated var customMirror: Mirror { Mirror(self, children: ["fileURL": fileURL.path]) }

    // MARK: Reading and writing

    private var path: String { fileURL.path }

    /// The table, read from the file the first time; a missing file is an empty table.
    private func load() throws(BondStoreError) -> BondTable {
        if let table { return table }
        guard FileManager.default.fileExists(atPath: path) else {
            let empty = BondTable()
            table = empty
            return empty
        }
        try checkPermissions()
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw .unreadableFile(path: path, reason: Self.reason(error))
        }
        let loaded = try BondFile.decode(data, path: path)
        table = loaded
        return loaded
    }

    /// Refuses (or, with ``PermissionPolicy/repair(_:)``, restricts) a file with any group or
    /// other permission bit. Anything but a regular file, or a file whose mode cannot be read, is
    /// left to the read that follows (which reports it).
    private func checkPermissions() throws(BondStoreError) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        let mode = UInt16(truncatingIfNeeded: status.st_mode) & 0o7777
        guard mode & 0o077 != 0 else { return }
        switch permissionPolicy {
        case .refuse:
            throw .insecurePermissions(path: path, mode: mode)
        case .repair(let report):
            guard chmod(path, mode_t(mode & 0o700)) == 0 else { throw .insecurePermissions(path: path, mode: mode) }
            report(path, mode)
        }
    }

    /// Writes `newTable` atomically, then keeps it; on failure the file and the table are unchanged.
    private func write(_ newTable: BondTable) throws(BondStoreError) {
        let data: Data
        do {
            data = try BondFile.encode(newTable)
        } catch {
            throw .writeFailed(path: path, reason: "cannot encode the bonds")
        }
        try AtomicFile.replace(fileURL, with: data)
        table = newTable
    }

    /// An error's text without anything from the file (Foundation's errors name the path at most).
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return "\(code)"
        }
        return "\(nsError.domain) \(nsError.code)"
    }
}

/// The bond file, schema version 1: a JSON object with the version, our identity (absent until
/// set) and the bonds ordered by identity address. Keys are 32 hex digits, most significant byte
/// first; EDIV 4 and Rand 16 hex digits; dates ISO 8601; addresses as `BluetoothAddress` prints
/// them. Absent keys are left out, and so is `"peerRejectedKey": true` on a bond whose key the
/// peer has not rejected (see `Bond.peerRejectedKey`).
///
/// ```json
/// {
///   "bonds" : [
///     {
///       "authenticated" : false,
///       "createdAt" : "2025-06-01T12:00:00Z",
///       "identityAddress" : "C0:11:22:33:44:55/random",
///       "keySize" : 16,
///       "lastAddress" : "70:81:94:0D:FB:AA/random",
///       "longTermKey" : {
///         "ediv" : "0000",
///         "key" : "a1a2a3a4a5a6a7a8a9aaabacadaeafb0",
///         "rand" : "0000000000000000"
///       },
///       "peerIdentityResolvingKey" : "c1c2c3c4c5c6c7c8c9cacbcccdcecfd0",
///       "secureConnections" : true
///     }
///   ],
///   "localIdentity" : {
///     "address" : "00:1B:DC:07:32:5A/public",
///     "identityResolvingKey" : "f1f2f3f4f5f6f7f8f9fafbfcfdfefff0"
///   },
///   "schemaVersion" : 1
/// }
/// ```
enum BondFile {
    /// The version this code writes and the newest it reads.
    static let schemaVersion = 1

    private struct Document: Codable {
        var schemaVersion: Int
        var localIdentity: LocalIdentity?
        var bonds: [Bond]
    }

    private struct VersionOnly: Decodable {
        var schemaVersion: Int
    }

    static func encode(_ table: BondTable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Document(schemaVersion: schemaVersion, localIdentity: table.localIdentity, bonds: table.sortedBonds))
        data.append(UInt8(ascii: "\n"))
        return data
    }

    static func decode(_ data: Data, path: String) throws(BondStoreError) -> BondTable {
        let decoder = JSONDecoder()
        let version: Int
        do {
            version = try decoder.decode(VersionOnly.self, from: data).schemaVersion
        } catch {
            throw .corruptFile(path: path, reason: reason(error))
        }
        guard version <= schemaVersion else {
            throw .unsupportedSchemaVersion(path: path, found: version, supported: schemaVersion)
        }
        guard version >= 1 else { throw .corruptFile(path: path, reason: "schema version \(version)") }
        let document: Document
        do {
            document = try decoder.decode(Document.self, from: data)
        } catch {
            throw .corruptFile(path: path, reason: reason(error))
        }
        var table = BondTable(localIdentity: document.localIdentity)
        for bond in document.bonds {
            guard table.bonds.updateValue(bond, forKey: bond.identityAddress) == nil else {
                throw .corruptFile(path: path, reason: "two bonds for \(bond.identityAddress)")
            }
        }
        return table
    }

    /// Where and what went wrong, built only from field names and this module's own messages (a
    /// JSON syntax error's text could quote the file, so it is reduced to "not valid JSON").
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable" }
        func at(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "the top level" : context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(at(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context): return "\(at(context)): missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(at(context)): wrong type"
        @unknown default: return "undecodable"
        }
    }
}

/// Replaces a file atomically with POSIX calls (which Foundation brings in on every platform):
/// `open(O_CREAT | O_EXCL, 0600)` on a fresh temporary name in the same directory, `write`,
/// `fsync`, `rename` over the target, then `fsync` of the directory so the rename is durable.
enum AtomicFile {
    static func replace(_ url: URL, with data: Data) throws(BondStoreError) {
        let path = url.path
        let directory = url.deletingLastPathComponent()
        func failure(_ step: String, _ code: Int32 = errno) -> BondStoreError {
            .writeFailed(path: path, reason: "\(step): \(POSIXErrorCode(rawValue: code).map { "\($0)" } ?? "errno \(code)")")
        }

        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .writeFailed(path: path, reason: "cannot create the directory \(directory.path)")
            }
        }

        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create a temporary file") }
        var closed = false
        var renamed = false
        defer {
            if !closed { _ = close(descriptor) }
            if !renamed { _ = unlink(temporary) }
        }
        // 0600 whatever the umask took away.
        guard fchmod(descriptor, 0o600) == 0 else { throw failure("chmod 0600") }
        var failedWrite: Int32?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failedWrite = errno
                    return
                }
                offset += written
            }
        }
        if let code = failedWrite { throw failure("write", code) }
        guard fsync(descriptor) == 0 else { throw failure("fsync") }
        closed = true
        guard close(descriptor) == 0 else { throw failure("close") }
        guard rename(temporary, path) == 0 else { throw failure("rename") }
        renamed = true

        // Best effort: some file systems refuse fsync on a directory; the file itself is on disk.
        let directoryDescriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            _ = close(directoryDescriptor)
        }
    }
}
