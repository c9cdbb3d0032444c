/// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR): the check of the `stx` framing.
/// Its published check value: "123456789" gives 0x29B1.
public enum CRC16 {
    public static func ccittFalse(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
        }
        return crc
    }
}
