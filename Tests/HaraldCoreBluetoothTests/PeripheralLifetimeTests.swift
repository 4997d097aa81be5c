import Harald
import HaraldCore
import HaraldCoreBluetooth
import Testing

@Suite("CoreBluetooth peripheral backend: lifetime", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralLifetimeTests {
    @Test func aBackendDroppedWhileServingEndsTheLoopsOverItsEvents() async throws {
        var events: AsyncStream<PeripheralEvent>?
        do {
            let (_, backend) = FakePeripheralManager.make()
            let serving = try await backend.serve(TestDevice.definition())
            events = serving.events()
        }
        var iterator = try #require(events).makeAsyncIterator()
        while await iterator.next() != nil {}
    }
}
