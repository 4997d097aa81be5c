import Harald
import Testing

/// `isCancellation` tells a cancelled task from a failure whichever error type reports it.
@Suite("Cancellation as an error")
struct CancellationTests {
    @Test func bluetoothErrorCancelledIsACancellation() {
        let error: any Error = BluetoothError.cancelled
        #expect(error.isCancellation)
    }

    @Test func swiftCancellationErrorIsACancellation() {
        let error: any Error = CancellationError()
        #expect(error.isCancellation)
    }

    @Test func otherBluetoothErrorsAreNotCancellations() {
        #expect(!BluetoothError.timeout(operation: "read", after: .seconds(30)).isCancellation)
        #expect(!BluetoothError.disconnected(.localRequest).isCancellation)
    }
}
