import BenchCore
import Foundation
import Testing

/// The decision rule of a verdict with a stated confidence: from the count of values beyond a limit, binomial against
/// the share the threshold allows.
@Suite struct ProportionDecisionTests {
    /// P(X ≤ k) summed term by term from the binomial coefficients, for small n: what the log-space sums must equal.
    static func bruteForce(atMost k: Int, of n: Int, share p: Double) -> Double {
        var total = 0.0
        var coefficient = 1.0
        guard k >= 0 else { return 0 }
        for i in 0...n {
            if i > 0 { coefficient = coefficient * Double(n - i + 1) / Double(i) }
            if i <= k { total += coefficient * pow(p, Double(i)) * pow(1 - p, Double(n - i)) }
        }
        return total
    }

    @Test func aP99NeedsTwoHundredNinetyNineValuesWithNoneOverToPassAtNinetyFivePercent() {
        #expect(ProportionDecision.valuesToPass(allowedShare: 0.01, confidence: 0.95) == 299)
        #expect(ProportionDecision.decide(beyond: 0, of: 299, allowedShare: 0.01, confidence: 0.95) == .pass)
        #expect(ProportionDecision.decide(beyond: 0, of: 298, allowedShare: 0.01, confidence: 0.95) == .undecided)
        #expect(ProportionDecision.decide(beyond: 0, of: 30, allowedShare: 0.01, confidence: 0.95) == .undecided)
    }

    @Test func twoOverInTwentyAlreadyFailsAP99AndOneDoesNot() {
        #expect(ProportionDecision.decide(beyond: 2, of: 20, allowedShare: 0.01, confidence: 0.95) == .fail)
        #expect(ProportionDecision.decide(beyond: 1, of: 20, allowedShare: 0.01, confidence: 0.95) == .undecided)
        // One slow broadcast of 30: what decided the old search, and decides nothing here.
        #expect(ProportionDecision.decide(beyond: 1, of: 30, allowedShare: 0.01, confidence: 0.95) == .undecided)
    }

    @Test func moreValuesDecideWhatFewerCouldNot() {
        // One over: a pass once 473 values show it rare enough.
        #expect(ProportionDecision.decide(beyond: 1, of: 472, allowedShare: 0.01, confidence: 0.95) == .undecided)
        #expect(ProportionDecision.decide(beyond: 1, of: 474, allowedShare: 0.01, confidence: 0.95) == .pass)
        // Exactly the allowed share is never decided either way.
        #expect(ProportionDecision.decide(beyond: 100, of: 10_000, allowedShare: 0.01, confidence: 0.95) == .undecided)
        #expect(ProportionDecision.decide(beyond: 1_000, of: 1_000_000, allowedShare: 0.01, confidence: 0.95) == .pass)
        #expect(ProportionDecision.decide(beyond: 11_000, of: 1_000_000, allowedShare: 0.01, confidence: 0.95) == .fail)
    }

    @Test func aHigherConfidenceNeedsMoreValues() {
        #expect(ProportionDecision.valuesToPass(allowedShare: 0.01, confidence: 0.99) == 459)
        #expect(ProportionDecision.decide(beyond: 0, of: 400, allowedShare: 0.01, confidence: 0.99) == .undecided)
        #expect(ProportionDecision.valuesToPass(allowedShare: 0.5, confidence: 0.95) == 5)
    }

    @Test func theEdgesOfTheShareAreJudgedAsCounted() {
        #expect(ProportionDecision.decide(beyond: 0, of: 5, allowedShare: 0, confidence: 0.95) == .pass)
        #expect(ProportionDecision.decide(beyond: 1, of: 5, allowedShare: 0, confidence: 0.95) == .fail)
        #expect(ProportionDecision.decide(beyond: 5, of: 5, allowedShare: 1, confidence: 0.95) == .pass)
        #expect(ProportionDecision.decide(beyond: 0, of: 0, allowedShare: 0.01, confidence: 0.95) == .undecided)
        #expect(ProportionDecision.decide(beyond: 3, of: 2, allowedShare: 0.01, confidence: 0.95) == .undecided)
    }

    /// The decision equals the one the binomial's exact sums give, for every count of every small n.
    @Test(arguments: [0.01, 0.05, 0.5, 0.9])
    func decisionsMatchTheExactBinomial(share: Double) {
        for n in [1, 7, 20, 60] {
            for k in 0...n {
                let (atMost, below) = (Self.bruteForce(atMost: k, of: n, share: share), Self.bruteForce(atMost: k - 1, of: n, share: share))
                // A probability a rounding away from 5% decides nothing about the sums: 1 of 1 at 5% is exactly it.
                guard abs(atMost - 0.05) > 1e-9, abs(1 - below - 0.05) > 1e-9 else { continue }
                let passes = Self.bruteForce(atMost: k, of: n, share: share) <= 0.05
                let fails = k > 0 && 1 - Self.bruteForce(atMost: k - 1, of: n, share: share) <= 0.05
                let expected: ProportionDecision.Outcome = passes ? .pass : fails ? .fail : .undecided
                #expect(
                    ProportionDecision.decide(beyond: k, of: n, allowedShare: share, confidence: 0.95) == expected,
                    "k \(k) of n \(n) at share \(share)")
            }
        }
    }
}
