/// A non-negative decimal number read exactly from text like `1.25`, kept as its digits, so that unit
/// conversions are done in integers without binary rounding.
struct DecimalNumber {
    /// The digits before the decimal point, without leading zeros.
    private let whole: Substring
    /// The digits after the decimal point, without trailing zeros.
    private let fraction: Substring

    /// Reads `[0-9]+(\.[0-9]+)?`, of any length; nil for anything else.
    init?(_ text: Substring) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || (!fraction.isEmpty && fraction.allSatisfy(\.isASCIIDigit)) else { return nil }
        self.whole = whole.drop { $0 == "0" }
        self.fraction = fraction.dropLast(fraction.reversed().prefix { $0 == "0" }.count)
    }

    /// The number times `multiplier`, if that is a whole number that fits in 64 bits; nil otherwise.
    func scaled(by multiplier: UInt64) -> UInt64? {
        guard whole.count <= 20, let wholeValue = UInt64(whole.isEmpty ? "0" : whole) else { return nil }
        let (wholePart, overflow) = wholeValue.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        guard !fraction.isEmpty else { return wholePart }
        // fraction · multiplier / 10^scale must be whole; with no trailing zeros, more than 19 digits never are
        // for a multiplier of at most 10^19.
        guard fraction.count <= 19, let fractionValue = UInt64(fraction) else { return nil }
        var divisor: UInt64 = 1
        for _ in 0..<fraction.count { divisor *= 10 }
        let product = fractionValue.multipliedFullWidth(by: multiplier)
        guard product.high < divisor else { return nil }
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        guard remainder == 0 else { return nil }
        let (sum, sumOverflow) = wholePart.addingReportingOverflow(quotient)
        return sumOverflow ? nil : sum
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
