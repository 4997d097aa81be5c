import Testing

@testable import HaraldHCIBackend

/// The HCI peripheral's event stream bound RELIABILITY.md lists (scripts/check-limits ties the
/// figure here to the document).
@Suite("HCI peripheral: documented limits")
struct HCIPeripheralDefaultLimitTests {
    @Test func anEventsStreamHoldsTheNewest256Events() {
        #expect(HCIPeripheral.eventBufferLimit == 256)
    }
}
