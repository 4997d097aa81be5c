// `import Harald` is all an app needs (plus a backend module): the modules whose types
// Harald's public declarations name come with it.
//
// - HaraldCodec: `BluetoothUUID`, the `ByteDecodable`/`ByteEncodable` protocols a value type
//   adopts, and their errors.
// - HaraldCore: addresses, `RSSI`, advertising data, handles and properties, `ATTErrorCode`,
//   security levels and bonds.
// - HaraldProfiles: the SIG characteristics' values (`HeartRateMeasurement`, `BatteryLevel`, …)
//   that the typed `Characteristic` specs read and write.
//
// These are the package's only re-exports: scripts/architecture/layers.txt marks them on
// Harald's line, and scripts/check-architecture fails on any other `@_exported import` of a
// package module.
@_exported import HaraldCodec
@_exported import HaraldCore
@_exported import HaraldProfiles
