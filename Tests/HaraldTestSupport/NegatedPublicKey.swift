import HaraldSMP

/// The other point of P-256 with the same X coordinate: (x, p − y). The reflection attack of
/// CVE-2020-26558 works with it as well as with the key itself, so the SMP tests and the fuzz
/// targets send it to check that the X-coordinate comparison catches both.
public func negatedPublicKey(_ key: P256PublicKey) -> P256PublicKey {
    let p: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]
    let y = key.y.bigEndianBytes
    var difference = [UInt8](repeating: 0, count: 32)
    var borrow = 0
    for index in (0..<32).reversed() {
        let value = Int(p[index]) - Int(y[index]) - borrow
        borrow = value < 0 ? 1 : 0
        difference[index] = UInt8(value + 256 * borrow)
    }
    // The negation of a point on the curve is on the curve.
    return try! P256PublicKey(x: key.x, y: Value256(bigEndianBytes: difference)!)
}
