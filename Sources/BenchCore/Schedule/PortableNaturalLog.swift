/// The natural logarithm, computed here rather than by the platform's libm, so that a seed gives the same
/// Poisson schedule on every machine.
///
/// `x = m · 2^e` with `m` in `[1, 2)`; `ln x = e · ln 2 + 2 · atanh((m − 1)/(m + 1))`, the series in
/// `z = (m − 1)/(m + 1) ≤ 1/3` summed until its terms vanish. Relative error below 1e-14.
public func portableNaturalLog(_ x: Double) -> Double {
    precondition(x > 0 && x.isFinite, "portableNaturalLog of \(x)")
    let ln2 = 0.693_147_180_559_945_309_417_232_121_458
    var significand = x.significand  // in [1, 2)
    var exponent = Double(x.exponent)
    if significand > 1.414_213_562_373_095_048_8 {  // keep z small: m in [√2/2, √2)
        significand /= 2
        exponent += 1
    }
    let z = (significand - 1) / (significand + 1)
    let z2 = z * z
    var term = z
    var sum = 0.0
    var denominator = 1.0
    while true {
        let next = sum + term / denominator
        if next == sum { break }
        sum = next
        term *= z2
        denominator += 2
    }
    return exponent * ln2 + 2 * sum
}

/// log2 from ``portableNaturalLog(_:)``, for the same reason.
public func portableLog2(_ x: Double) -> Double {
    portableNaturalLog(x) / 0.693_147_180_559_945_309_417_232_121_458
}

/// e to the power `x`, computed here for the same reason as ``portableNaturalLog(_:)``: `x = k · ln 2 + r` with
/// `|r| ≤ ln 2 / 2`, `e^r` summed until its terms vanish, then scaled by `2^k`.
public func portableExponential(_ x: Double) -> Double {
    precondition(x.isFinite && abs(x) < 700, "portableExponential of \(x)")
    let ln2 = 0.693_147_180_559_945_309_417_232_121_458
    let k = (x / ln2).rounded()
    let r = x - k * ln2
    var sum = 1.0
    var term = 1.0
    var n = 1.0
    while true {
        term *= r / n
        let next = sum + term
        if next == sum { break }
        sum = next
        n += 1
    }
    return Double(sign: .plus, exponent: Int(k), significand: sum)
}
