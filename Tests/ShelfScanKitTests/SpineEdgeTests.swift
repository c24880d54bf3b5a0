import Testing
@testable import ShelfScanKit

/// The spine finder's decisions on edges, on hand-made lines whose right answer is known.
@Suite("Spine finder: slivers and edges that run on through rows")
struct SpineEdgeTests {
    typealias Line = SpineFinder.Line

    /// Vertical lines at `positions` with `supports`, between the image's sides at 0 and `width`.
    static func row(_ positions: [Double], _ supports: [Double], width: Double = 1000) -> [Line] {
        [Line(position: 0, slope: 0, support: 1)]
            + zip(positions, supports).map { Line(position: $0, slope: 0, support: $1) }
            + [Line(position: width, slope: 0, support: 1)]
    }

    @Test("a faint edge that leaves a sliver (a line of text on a spine) goes; its strong neighbour stays")
    func sliverEdgeRemoved() {
        // Spines about 100 wide; 530 is 30 from a strong edge and faint.
        let lines = Self.row([100, 200, 300, 400, 500, 530, 600, 700, 800, 900],
                             [0.8, 0.75, 0.8, 0.85, 0.8, 0.47, 0.8, 0.75, 0.8, 0.8])
        let kept = SpineFinder.withoutSlivers(lines).map(\.position)
        #expect(!kept.contains(530))
        #expect(kept.contains(500) && kept.contains(600))
        #expect(kept.count == lines.count - 1)
    }

    @Test("a thin book between two strong edges stays")
    func thinBookKept() {
        let lines = Self.row([100, 200, 300, 400, 500, 530, 600, 700, 800, 900],
                             [0.8, 0.75, 0.8, 0.85, 0.8, 0.82, 0.8, 0.75, 0.8, 0.8])
        #expect(SpineFinder.withoutSlivers(lines).map(\.position) == lines.map(\.position))
    }

    @Test("in a dim photo every edge is faint: a thin book's faint edge is as strong as the rest, and stays")
    func dimRowKept() {
        let lines = Self.row([100, 200, 300, 400, 500, 530, 600, 700, 800, 900],
                             [0.55, 0.5, 0.55, 0.6, 0.5, 0.52, 0.55, 0.5, 0.55, 0.5])
        #expect(SpineFinder.withoutSlivers(lines).map(\.position) == lines.map(\.position))
    }

    @Test("two faint edges in one spine: both go, the spine is whole again")
    func twoSlivers() {
        let lines = Self.row([100, 200, 230, 260, 300, 400, 500, 600, 700, 800, 900],
                             [0.8, 0.8, 0.46, 0.5, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8])
        let kept = SpineFinder.withoutSlivers(lines).map(\.position)
        #expect(!kept.contains(230) && !kept.contains(260))
        #expect(kept.contains(200) && kept.contains(300))
    }

    @Test("a line running on through the next row counts once; a line in one row only counts once")
    func distinctEdges() {
        // Three rows of the transposed image of a standing shelf: 120 and 480 are the tops and
        // bottoms of the books (present in every row), 300 only in the first.
        let rows = [SpineFinder.Row(top: 0, bottom: 100, lines: Self.row([120, 300, 480], [0.9, 0.6, 0.7])),
                    SpineFinder.Row(top: 95, bottom: 200, lines: Self.row([122, 481], [0.7, 0.5])),
                    SpineFinder.Row(top: 195, bottom: 300, lines: Self.row([119, 478, 700], [0.5, 0.5, 0.6]))]
        #expect(SpineFinder.distinctEdges(rows, side: 1000) == 4)
        // A standing shelf's spines in one row each count.
        let shelf = [SpineFinder.Row(top: 0, bottom: 300, lines: Self.row([100, 200, 300, 400, 500], [0.8, 0.8, 0.8, 0.8, 0.8]))]
        #expect(SpineFinder.distinctEdges(shelf, side: 1000) == 5)
    }
}
