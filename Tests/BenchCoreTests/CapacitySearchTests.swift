import Testing

@testable import BenchCore

/// The capacity search against servers of known capacity (an oracle): bracketing, bisection, the ends of the range,
/// harness-bound steps, repeats and results that are not monotonic.
@Suite struct CapacitySearchTests {
    /// Runs `search` to its end against `verdict`, and returns it.
    private func finish(
        _ search: CapacitySearch, _ verdict: (UInt64) -> CapacitySearch.Verdict
    ) -> CapacitySearch {
        var search = search
        while let value = search.nextValue() { search.record(value, verdict(value)) }
        return search
    }

    @Test(arguments: [1_984, 100, 101, 150, 19_999, 5_000, 2_047, 2_048])
    func clientsAreFoundWithinTheResolution(truth: UInt64) throws {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) { $0 <= truth ? .pass : .fail }
        #expect(search.ending == .found)
        let capacity = try #require(search.capacity)
        let failure = try #require(search.firstFail)
        #expect(capacity <= truth && truth < failure)
        #expect(failure - capacity <= max(1, UInt64(0.02 * Double(capacity))), "\(search.steps)")
        #expect(search.steps.count <= 16, "\(search.steps.map(\.value))")
        #expect(!search.isNonMonotonic)
        // The two steps that decide the answer ran again, last.
        #expect(Set(search.steps.suffix(2).map(\.value)) == [capacity, failure])
        #expect(search.isConfirmation(at: search.steps.count - 1) && search.isConfirmation(at: search.steps.count - 2))
        #expect(search.capacityBound == failure - 1)
    }

    @Test func theFirstStepsDoubleFromTheLowEnd() {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) { $0 <= 1_984 ? .pass : .fail }
        #expect(search.steps.prefix(6).map(\.value) == [100, 200, 400, 800, 1_600, 3_200])
        #expect(search.steps[6].value == 2_400, "bisection between 1,600 and 3,200")
    }

    /// An interval: shorter is harder; bracketing halves it.
    @Test func theShortestIntervalHeldIsFound() throws {
        let truth: UInt64 = 37_000  // 37 µs
        let search = finish(CapacitySearch(low: 10_000_000, high: 10_000, direction: .decreasing)) {
            $0 >= truth ? .pass : .fail
        }
        #expect(search.steps.prefix(3).map(\.value) == [10_000_000, 5_000_000, 2_500_000])
        let capacity = try #require(search.capacity)
        let failure = try #require(search.firstFail)
        #expect(capacity >= truth && failure < truth)
        #expect(capacity - failure <= UInt64(0.02 * Double(capacity)))
        #expect(search.ending == .found)
    }

    @Test func aLowEndThatBreaksEndsAtOnce() {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) { _ in .fail }
        #expect(search.steps.map(\.value) == [100])
        #expect(search.capacity == nil && search.ending == .lowEndFails)
    }

    @Test func aHighEndThatHoldsIsAtLeastIt() {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) { _ in .pass }
        #expect(search.steps.map(\.value) == [100, 200, 400, 800, 1_600, 3_200, 6_400, 12_800, 20_000, 20_000])
        #expect(search.capacity == 20_000 && search.ending == .highEndHolds && search.capacityBound == nil)
    }

    /// The harness saturated at 6,400: no harder step would measure the server, so the search stops there, the
    /// capacity at least the last pass.
    @Test func aHarnessBoundStepStopsTheSearchAtTheLastPass() {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) {
            $0 >= 6_000 ? .harnessBound : .pass
        }
        #expect(search.steps.suffix(2).map(\.value) == [6_400, 3_200] && search.steps.suffix(2).first?.verdict == .harnessBound)
        #expect(search.isConfirmation(at: search.steps.count - 1), "the last pass confirmed")
        #expect(search.capacity == 3_200 && search.ending == .harnessBound)
    }

    @Test func aValuePassesOnlyIfEveryStepAtItPasses() {
        typealias Verdict = CapacitySearch.Verdict
        #expect(Verdict.combining([.pass, .pass, .pass]) == .pass)
        #expect(Verdict.combining([.pass, .fail, .pass]) == .undecided, "disputed: neither confirmed")
        #expect(Verdict.combining([.fail, .fail]) == .fail)
        #expect(Verdict.combining([.pass, .harnessBound]) == .harnessBound)
        #expect(Verdict.combining([.harnessBound, .fail]) == .fail)
        #expect(Verdict.combining([.pass, .undecided]) == .undecided, "a pass its confirmation did not decide")
        #expect(Verdict.combining([.undecided, .fail]) == .fail)
        #expect(Verdict.combining([.fail, .pass]) == .undecided, "a failure its confirmation did not repeat")
    }

    /// A band where the steps cannot be decided (the server's p99 sits at the limit): the search stays below it, and
    /// the capacity's interval reaches up to the first decided failure.
    @Test func anUndecidedBandIsNotPassedAndBoundsTheIntervalByTheFirstDecidedFailure() throws {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) {
            $0 <= 1_000 ? .pass : $0 <= 1_400 ? .undecided : .fail
        }
        let capacity = try #require(search.capacity)
        #expect(capacity <= 1_000 && search.firstFail.map { $0 > 1_000 } == true)
        #expect(search.firstDecidedFail == 1_600 && search.capacityBound == 1_599, "\(search.steps.map(\.value))")
        #expect(search.ending == .found)
        #expect(search.steps.filter { $0.value == capacity }.count == 2, "the last pass was confirmed")
        let firstFail = try #require(search.firstFail)
        #expect(search.steps.filter { $0.value == firstFail }.count == 2, "the first step that did not pass too")
        // Undecided from the first step past the last pass: no failure decided, so no bound above.
        let open = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) {
            $0 <= 1_000 ? .pass : .undecided
        }
        #expect(open.capacity == 1_000 && open.firstDecidedFail == nil && open.capacityBound == nil)
    }

    /// The first step that did not pass was undecided, and no harder one was tried: one step twice as hard bounds the
    /// capacity's interval (issue 42: "at least 79" where 160 clients would have failed at once).
    @Test func anUndecidedFirstFailureIsBoundedByAStepTwiceAsHard() throws {
        let search = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) {
            $0 <= 79 ? .pass : $0 <= 100 ? .undecided : .fail
        }
        #expect(search.capacity == 79 && search.firstFail == 80, "\(search.steps.map(\.value))")
        #expect(search.steps.contains { $0.value == 160 && $0.verdict == .fail }, "\(search.steps.map(\.value))")
        #expect(search.capacityBound == 159 && search.ending == .found)
        // That step's harness saturated: the answer found stands, unbounded, and the search is not called harness-bound.
        let saturated = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) {
            $0 <= 79 ? .pass : $0 <= 100 ? .undecided : .harnessBound
        }
        #expect(saturated.capacity == 79 && saturated.capacityBound == nil && saturated.ending == .found)
    }

    /// The last pass fails when run again: it is no pass, and the search confirms the pass below it; then, the dispute
    /// being the only one, the value halfway between (9), which passes twice and is the answer.
    @Test func aConfirmationThatDisagreesMovesTheAnswer() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 1, high: 64, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value == 10 { return seen[value] == 1 ? .pass : .fail }  // a drift the second run caught
            return value <= 10 ? .pass : .fail
        }
        #expect(search.capacity == 9 && search.firstFail == 10, "\(search.steps.map(\.value))")
        #expect(search.verdicts[10] == .undecided && search.capacityBound == 10, "disputed: the interval reaches over it")
        #expect(search.steps.filter { $0.value == 8 }.count == 2 && search.steps.filter { $0.value == 10 }.count == 2)
        #expect(search.steps.filter { $0.value == 9 }.count == 2, "\(search.steps.map(\.value))")
        #expect(search.ending == .found)
    }

    /// Issue 62's relay: its limit near 1,400 subscribers, a first step just over it passing at the way-finding
    /// confidence and its confirmation undecided. The margin alone answered 1,260, 10% under; the value halfway between
    /// the confirmed pass and the lone dispute brings the answer within 5% of the limit.
    @Test func aLoneDisputeIsRefinedToWithinFivePercent() throws {
        for limit: UInt64 in [1_400, 1_333, 1_111, 2_000, 417] {
            var seen: [UInt64: Int] = [:]
            let search = finish(CapacitySearch(low: 200, high: 4_000, direction: .increasing)) { value in
                seen[value, default: 0] += 1
                if value <= limit { return .pass }
                if Double(value) <= Double(limit) * 1.08 { return seen[value] == 1 ? .pass : .undecided }
                return .fail
            }
            let capacity = try #require(search.capacity, "\(search.steps.map(\.value))")
            #expect(capacity <= limit && Double(capacity) >= 0.95 * Double(limit), "\(limit): \(search.steps.map(\.value))")
            #expect(search.steps.filter { $0.value == capacity }.count == 2, "the answer was confirmed")
            #expect(search.ending == .found && search.steps.count <= 20, "\(limit): \(search.steps.map(\.value))")
        }
    }

    /// The halfway value below a lone dispute is disputed in turn (the limit lies in a band): the refinement ends there,
    /// and the answer is the pass the margin found.
    @Test func aRefinementDisputedInTurnEndsTheRefinement() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 200, high: 4_000, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            return value <= 1_400 ? .pass : value <= 1_500 ? (seen[value] == 1 ? .pass : .undecided) : .fail
        }
        let steps = search.steps.map { "\($0.value) \($0.verdict)" }
        #expect(search.capacity == 1_350 && search.ending == .found, "\(steps)")
        #expect(search.steps.filter { $0.value == 1_425 }.count == 2, "the halfway value, disputed: \(steps)")
        #expect(search.verdicts[1_425] == .undecided, "\(steps)")
        #expect(!search.steps.contains { (1_351..<1_425).contains($0.value) && $0.value != 1_400 }, "\(steps)")
    }

    /// Issue 42's search on a busy machine: a band (86–106 clients) where a first step, deciding its pass with less
    /// confidence, passes, and its confirmation at the full confidence cannot decide. Every dispute used to start a
    /// bisection inside the band, each of its steps disputed in turn (19 steps); now one dispute confirms a pass at
    /// least 10% below it (each found the way first, when the pass below is further off), and the answer's interval
    /// still holds the band's start.
    @Test func aBandOfDisputedPassesIsNotBisected() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value <= 85 { return .pass }
            if value <= 106 { return seen[value] == 1 ? .pass : .undecided }
            return .fail
        }
        let capacity = try #require(search.capacity)
        let bound = try #require(search.capacityBound)
        #expect(capacity <= 85 && bound >= 85 && bound <= 106, "\(search.steps.map(\.value))")
        #expect(search.steps.count <= 15, "\(search.steps.map(\.value))")
        #expect(search.steps.filter { $0.value == capacity }.count == 2, "the answer was confirmed")
        #expect(search.steps.filter { $0.value == 100 }.count == 1, "within 10% of a disputed 105: not tried again")
        #expect(search.ending == .found)
    }

    /// Issue 42's "40" on a busy machine: doubling passed 40 and 80, and 80 was disputed once bisection came back to
    /// it; the pass below (40) was confirmed as the answer though the band began at 76. One way-finding step a margin
    /// below the dispute (72) comes first, and it is the answer.
    @Test func aDisputeFarAboveThePassBelowFindsTheWayBetween() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value <= 75 { return .pass }
            if value <= 90 { return seen[value] == 1 ? .pass : .undecided }
            return .fail
        }
        #expect(search.capacity == 72 && search.ending == .found, "\(search.steps.map(\.value))")
        #expect(search.steps.filter { $0.value == 72 }.count == 2, "the answer was confirmed")
        #expect(search.steps.filter { $0.value == 40 }.count == 1, "\(search.steps.map(\.value))")
        let bound = try #require(search.capacityBound)
        #expect(bound >= 75 && bound <= 91, "\(search.steps.map(\.value))")
    }

    /// The way-finding step below a dispute did not pass (undecided, in the band): it is confirmed, and a dispute there
    /// finds the way once more, but the band is never bisected (issue 42: 96 undecided below a disputed 107 started a
    /// bisection 88, 92, 90, 91 on a busy machine, 19 steps).
    @Test func aWayFindingStepThatDoesNotPassIsNotBisectedBelow() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value <= 85 { return .pass }
            if value <= 96 { return .undecided }
            if value <= 107 { return seen[value] == 1 ? .pass : .fail }
            return .fail
        }
        #expect(search.capacity == 80 && search.ending == .found, "\(search.steps.map(\.value))")
        #expect(!search.steps.contains { (87...95).contains($0.value) }, "\(search.steps.map(\.value))")
        #expect(search.steps.filter { $0.value == 96 }.count == 2 && search.steps.count <= 17, "\(search.steps.map(\.value))")
    }

    /// A dispute just above the easy end, every pass within the margin below it: the capacity is still the hardest
    /// pass (confirmed in turn), never none.
    @Test func aDisputeNearTheEasyEndStillConfirmsAPass() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 100, high: 400, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value <= 100 { return .pass }
            if value <= 110 { return seen[value] == 1 ? .pass : .undecided }
            return .fail
        }
        #expect(search.capacity == 100 && search.ending == .found, "\(search.steps.map(\.value))")
        #expect(search.steps.filter { $0.value == 100 }.count == 2)
    }

    @Test func theIntervalOfAnIntervalsCapacityLiesAboveTheFirstFailure() throws {
        let search = finish(CapacitySearch(low: 10_000_000, high: 10_000, direction: .decreasing)) {
            $0 >= 37_000 ? .pass : .fail
        }
        let failure = try #require(search.firstDecidedFail)
        #expect(search.capacityBound == failure + 1)
    }

    /// Nothing decided at the low end within the budget: no capacity, and the search ends there.
    @Test func anUndecidedLowEndEndsTheSearchWithNoCapacity() {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) { _ in .undecided }
        #expect(search.steps.map(\.value) == [100] && search.capacity == nil && search.ending == .lowEndFails)
    }

    /// A harder step that passed after an easier one failed: the capacity is bounded by the lowest failure, and the
    /// search says the results were not monotonic.
    @Test func resultsThatAreNotMonotonicAreBoundedByTheLowestFailure() {
        var search = CapacitySearch(low: 100, high: 1_000, direction: .increasing)
        search.record(100, .pass)
        search.record(200, .fail)
        search.record(150, .pass)
        search.record(400, .pass)
        #expect(search.isNonMonotonic)
        #expect(search.capacity == 150 && search.firstFail == 200)
    }

    /// Issue 62's search with a `yes` through its first 20 s: 18 and 20 clients undecided while the machine was busy,
    /// then 36 passed once it was quiet. The old search answered the disturbed 17 ("not monotonic: bounded by the lowest
    /// failure"); now the values that did not pass below a harder pass are sampled again, and the search goes on from
    /// what they show.
    @Test func evidenceThatIsNotMonotonicIsSampledAgainBeforeItIsAnswered() throws {
        var seen: [UInt64: Int] = [:]
        var busy = true  // the first steps at 18 to 20: the machine busy
        let search = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value > 20 { busy = false }
            if busy && (18...20).contains(value) { return .undecided }
            return value <= 90 ? .pass : .fail
        }
        let capacity = try #require(search.capacity, "\(search.steps)")
        #expect(capacity >= 88 && capacity <= 90, "\(search.steps.map(\.value))")
        #expect(!search.isNonMonotonic && search.ending == .found, "\(search.steps)")
        #expect(search.steps.allSatisfy { step in search.steps.filter { $0.value == step.value }.count <= 3 })
        #expect(search.verdicts[18] == .pass || search.verdicts[18] == nil, "sampled again once quiet")
        // An undecided step then a pass at the full confidence: a pass; a pass then an undecided confirmation: not.
        #expect(CapacitySearch.Verdict.combining([.undecided, .pass]) == .pass)
        #expect(CapacitySearch.Verdict.combining([.undecided, .undecided, .pass]) == .pass)
        #expect(CapacitySearch.Verdict.combining([.pass, .undecided]) == .undecided)
    }

    /// Issue 62's fifth search with a `yes` through its first 20 s: 160 passed once and its confirmation could not decide
    /// it; the way-finding step a margin below (144) failed, twice. The old search then answered 80, the pass doubling
    /// had left below, with nothing tried between: a failure decided twice is bisected down to as any other.
    @Test func aWayFindingStepThatFailsTwiceIsBisectedDownTo() throws {
        var seen: [UInt64: Int] = [:]
        let search = finish(CapacitySearch(low: 10, high: 400, direction: .increasing)) { value in
            seen[value, default: 0] += 1
            if value == 160 { return seen[value] == 1 ? .pass : .undecided }
            return value <= 120 ? .pass : .fail
        }
        let capacity = try #require(search.capacity, "\(search.steps)")
        #expect(capacity >= 117 && capacity <= 120, "\(search.steps.map(\.value))")
        #expect(search.steps.filter { $0.value == 144 }.count == 2, "\(search.steps.map(\.value))")
        #expect(search.ending == .found && search.steps.count <= 24, "\(search.steps.map(\.value))")
    }

    @Test func theStepLimitEndsASearch() {
        let search = finish(CapacitySearch(low: 1, high: 1_000_000, direction: .increasing, resolution: 0, maximumSteps: 5)) {
            $0 <= 700_001 ? .pass : .fail
        }
        #expect(search.steps.count == 5 && search.ending == .stepLimit)
    }
}
