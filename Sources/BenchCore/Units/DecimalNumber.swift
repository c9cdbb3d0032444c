/// A non-negative decimal number read exactly from text like `1.25`, as digits and a scale, so that unit
/// conversions are done in integers without binary rounding.
struct DecimalNumber {
    /// The digits as one integer: `1.25` is 125.
    let digits: UInt64
    /// Digits after the decimal point: `1.25` has 2.
    let scale: Int

    /// Reads `[0-9]+(\.[0-9]+)?`; nil for anything else or too many digits.
    init?(_ text: Substring) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || (!fraction.isEmpty && fraction.allSatisfy(\.isASCIIDigit)) else { return nil }
        guard let value = UInt64(whole + fraction), whole.count + fraction.count <= 19 else { return nil }
        digits = value
        scale = fraction.count
    }

    /// The number times `multiplier`, if that is a whole number that fits in 64 bits.
    func scaled(by multiplier: UInt64) -> UInt64? {
        var divisor: UInt64 = 1
        for _ in 0..<scale { divisor *= 10 }
        let product = digits.multipliedFullWidth(by: multiplier)
        guard product.high < divisor else { return nil }
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        return remainder == 0 ? quotient : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
