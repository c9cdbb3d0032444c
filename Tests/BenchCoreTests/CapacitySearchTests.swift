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
        #expect(search.steps.count <= 14, "\(search.steps.map(\.value))")
        #expect(!search.isNonMonotonic)
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
        #expect(search.steps.map(\.value) == [100, 200, 400, 800, 1_600, 3_200, 6_400, 12_800, 20_000])
        #expect(search.capacity == 20_000 && search.ending == .highEndHolds)
    }

    /// The harness saturated at 6,400: no harder step would measure the server, so the search stops there, the
    /// capacity at least the last pass.
    @Test func aHarnessBoundStepStopsTheSearchAtTheLastPass() {
        let search = finish(CapacitySearch(low: 100, high: 20_000, direction: .increasing)) {
            $0 >= 6_000 ? .harnessBound : .pass
        }
        #expect(search.steps.last?.value == 6_400 && search.steps.last?.verdict == .harnessBound)
        #expect(search.capacity == 3_200 && search.ending == .harnessBound)
    }

    @Test func aStepPassesOnlyIfEveryRepeatPasses() {
        typealias Verdict = CapacitySearch.Verdict
        #expect(Verdict.combining([.pass, .pass, .pass]) == .pass)
        #expect(Verdict.combining([.pass, .fail, .pass]) == .fail)
        #expect(Verdict.combining([.pass, .harnessBound]) == .harnessBound)
        #expect(Verdict.combining([.harnessBound, .fail]) == .fail)
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

    @Test func theStepLimitEndsASearch() {
        let search = finish(CapacitySearch(low: 1, high: 1_000_000, direction: .increasing, resolution: 0, maximumSteps: 5)) {
            $0 <= 700_001 ? .pass : .fail
        }
        #expect(search.steps.count == 5 && search.ending == .stepLimit)
    }
}
