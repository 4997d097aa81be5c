// HaraldCore: the one vocabulary of Harald, under every BLE module.
//
// Addresses, signal strength, advertising data, attribute handles and properties, the CCCD,
// ATT error codes, security levels and key types, and the one lock type; in Persistence/, the
// one store that writes to disk (`FileBondStore`: bonds in an owner-only JSON file). Everything
// above (ATT, HCI, profiles, the public API, backends, kits) names these types and defines no twin.
// Imports: HaraldCodec and Foundation only, so it builds for every Apple platform and Linux.
