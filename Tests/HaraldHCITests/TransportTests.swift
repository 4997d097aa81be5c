import Testing

@testable import HaraldHCI

@Suite("Transport specifications and opening")
struct TransportTests {
    @Test func tcpSpecificationGivesHostAndPort() throws {
        #expect(try HCITransportSpecification(parsing: "tcp:127.0.0.1:1234") == .tcp(host: "127.0.0.1", port: 1234))
        #expect(try HCITransportSpecification(parsing: "tcp:[::1]:9000") == .tcp(host: "::1", port: 9000))
    }

    @Test func hciSpecificationGivesAdapterIndex() throws {
        #expect(try HCITransportSpecification(parsing: "hci:0") == .hciUserChannel(adapter: 0))
        #expect(try HCITransportSpecification(parsing: "hci3") == .hciUserChannel(adapter: 3))
    }

    @Test(arguments: ["", "tcp:", "tcp:host", "tcp::12", "tcp:h:0", "tcp:h:70000", "tcp:h:x", "hci:", "hci:-1", "usb:0", "sim"])
    func malformedSpecificationIsATypedError(_ text: String) {
        #expect(throws: HCITransportError.self) { try HCITransportSpecification(parsing: text) }
    }

    @Test func specificationPrintsAsItParses() throws {
        for text in ["tcp:127.0.0.1:1234", "tcp:[::1]:9000", "hci:2"] {
            #expect(try HCITransportSpecification(parsing: text).description == text)
        }
    }

    @Test func tcpToAClosedPortFailsWithConnectFailed() throws {
        // Bind a listening-less port: connect to port 1 on loopback, which nothing serves here.
        #expect {
            _ = try openHCITransport("tcp:127.0.0.1:1")
        } throws: { error in
            guard case .connectFailed = error as? HCITransportError else { return false }
            return true
        }
    }

    #if os(Linux)
    @Test func userChannelWithoutAdapterFailsWithAClearError() {
        // No adapter 999 exists anywhere; depending on the kernel the socket call or the bind fails.
        #expect {
            _ = try openHCITransport("hci:999")
        } throws: { error in
            switch error as? HCITransportError {
            case .noSuchAdapter, .permissionDenied, .adapterBusy: return "\(error)".contains("hci999")
            default: return false
            }
        }
    }

    @Test func userChannelErrnoMapsToWhatTheUserMustDo() {
        #expect(
            HCIUserChannelTransport.error(ENODEV, adapter: "hci0", step: "bind")
                == .noSuchAdapter(
                    "hci0 does not exist (bind: \(describeErrno(ENODEV)))"))
        guard case .adapterBusy(let busy) = HCIUserChannelTransport.error(EBUSY, adapter: "hci0", step: "bind") else {
            Issue.record("EBUSY must map to adapterBusy"); return
        }
        #expect(busy.contains("hciconfig hci0 down"))
        guard case .permissionDenied = HCIUserChannelTransport.error(EPERM, adapter: "hci0", step: "bind") else {
            Issue.record("EPERM must map to permissionDenied"); return
        }
    }
    #endif
}

#if canImport(Glibc)
import Glibc
#endif
