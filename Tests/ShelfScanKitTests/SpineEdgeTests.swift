import Foundation
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

    @Test("edge maps: each pixel's edges as defined (3x3 sums, gradients either way, two thresholds), every size",
          arguments: [(1, 1), (2, 5), (3, 3), (5, 5), (4, 9), (9, 4), (17, 13), (64, 48), (101, 37)])
    func edgeMapsAsDefined(w: Int, h: Int) {
        var bytes = SeededBytes(seed: UInt64(w * 1000 + h))
        // Grays over the whole range (strong edges) and within a narrow one (faint edges mostly).
        for (low, high) in [(UInt8(0), UInt8(255)), (UInt8(100), UInt8(130))] {
            let gray = bytes.grays(width: w, height: h, low: low, high: high)
            let maps = EdgeMaps(gray)
            // The definition, pixel by pixel.
            func p(_ x: Int, _ y: Int) -> Int32 { Int32(gray.pixels[y * w + x]) }
            func sum(_ x: Int, _ y: Int) -> Int32 {
                guard x >= 1, y >= 1, x < w - 1, y < h - 1 else { return 0 }
                return (-1...1).reduce(0) { s, dy in s + (-1...1).reduce(0) { $0 + p(x + $1, y + dy) } }
            }
            var v = [UInt8](repeating: 0, count: w * h), vf = v, ht = v, hf = v
            for y in 0..<h {
                for x in 0..<w where x >= 2 && y >= 2 && x < w - 2 && y < h - 2 {
                    let gx = abs(sum(x + 1, y) - sum(x - 1, y)), gy = abs(sum(x, y + 1) - sum(x, y - 1))
                    if 2 * gx > 3 * gy { v[y * w + x] = gx > 72 ? 1 : 0; vf[y * w + x] = gx > 36 ? 1 : 0 }
                    if 2 * gy > 3 * gx { ht[x * h + y] = gy > 72 ? 1 : 0; hf[x * h + y] = gy > 36 ? 1 : 0 }
                }
            }
            #expect(maps.vertical == v && maps.verticalFaint == vf)
            #expect(maps.horizontalTransposed == ht && maps.horizontalTransposedFaint == hf)
            // The larger pictures exercise both thresholds both ways (else the check shows little).
            if w >= 64 {
                #expect(v.contains(1) && ht.contains(1), "no strong edge in \(low)-\(high)")
                #expect(vf.filter { $0 == 1 }.count > v.filter { $0 == 1 }.count, "no faint-only edge in \(low)-\(high)")
            }
        }
    }

    @Test("a row's support at a slope: for each x at the row's middle, the edge pixels on the line through it",
          arguments: [0.0, 0.17, -0.36, 0.36, 2.0])
    func supportAsDefined(slope: Double) {
        let (w, h) = (97, 61)
        var bytes = SeededBytes(seed: 7)
        let gray = bytes.grays(width: w, height: h)
        let edges = gray.pixels.map { $0 > 150 ? UInt8(1) : 0 }
        let row = SpineFinder.Row(top: 9, bottom: 50, lines: [])
        let support = SpineFinder.support(edges: edges, width: w, row: row, slope: slope)
        let middle = Double(row.bottom - row.top - 1) / 2
        var expected = [Int32](repeating: 0, count: w)
        for x in 0..<w {
            for yy in 0..<(row.bottom - row.top) {
                let at = x + Int(((Double(yy) - middle) * slope).rounded())
                if at >= 0, at < w, edges[(row.top + yy) * w + at] == 1 { expected[x] += 1 }
            }
        }
        #expect(support == expected)
        #expect(expected.contains { $0 > 0 })
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
        // A shelf board's lip seen as a run of lines 4 px apart is one edge, not six books;
        // spines 1% of the side apart still count one each.
        let board = [SpineFinder.Row(top: 0, bottom: 300, lines: Self.row([870, 874, 878, 882, 886, 890], [0.9, 0.9, 0.9, 0.9, 0.9, 0.9]))]
        #expect(SpineFinder.distinctEdges(board, side: 960) == 1)
        let thin = [SpineFinder.Row(top: 0, bottom: 300, lines: Self.row([100, 110, 120, 130], [0.8, 0.8, 0.8, 0.8]))]
        #expect(SpineFinder.distinctEdges(thin, side: 1000) == 4)
    }
}

/// A pile of books lying beside standing ones, drawn by hand: books are flat grays with dark
/// "words" on them, so the right answer is known.
@Suite("Spine finder: a stack beside standing books")
struct StackBesideStandingTests {
    static let width = 1400, height = 600

    /// Books lying in `0..<stackEnd` (when given) and standing to its right, on a light wall.
    static func photo(stackEnd: Int?) throws -> PixImage {
        var pixels = [UInt8](repeating: 225, count: width * height)
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ gray: UInt8) {
            for y in max(0, y0)..<min(height, y1) { for x in max(0, x0)..<min(width, x1) { pixels[y * width + x] = gray } }
        }
        let tones: [UInt8] = [70, 150, 40, 120, 95, 175]
        let start: Int
        if let stackEnd {
            // Lying books, 50 px thick, a title line of short dark words along each.
            for (i, top) in stride(from: 80, to: height - 50, by: 50).enumerated() {
                let tone = tones[i % tones.count]
                fill(20, top, stackEnd - 10 - (i % 3) * 15, top + 48, tone)
                for x in stride(from: 50, to: stackEnd - 80, by: 26) { fill(x, top + 19, x + 16, top + 29, tone > 110 ? 20 : 240) }
            }
            start = stackEnd + 20
        } else {
            start = 20
        }
        // Standing books, 45 px wide, words running down each.
        for (i, left) in stride(from: start, to: width - 45, by: 45).enumerated() {
            let tone = tones[(i + 2) % tones.count]
            fill(left, 60 + (i % 4) * 12, left + 43, height - 20, tone)
            for y in stride(from: 120, to: height - 80, by: 26) { fill(left + 17, y, left + 27, y + 16, tone > 110 ? 20 : 240) }
        }
        return try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels))
    }

    @Test("the stack's part is read as lying books, the rest as standing spines")
    func stackBeside() throws {
        let layout = try SpineFinder().spines(in: try Self.photo(stackEnd: 400))
        let lying = layout.regions.filter { $0.layout == .lyingSpine }
        let standing = layout.regions.filter { $0.layout == .spine }
        // Each of the eight lying books within a lying region (the words' edges may cut a book
        // in two), every lying region wider than tall and in the stack's part.
        for top in stride(from: 80, to: Self.height - 50, by: 50) {
            #expect(lying.contains { $0.box.y <= top + 24 && $0.box.y + $0.box.height >= top + 24 }, "book at \(top)")
        }
        for r in lying {
            #expect(r.box.width > r.box.height && r.box.x + r.box.width / 2 < 400, "\(r.box)")
        }
        // Standing spines only right of the stack.
        #expect(standing.count >= 8, "\(standing.count) standing regions")
        for r in standing { #expect(r.box.x + r.box.width / 2 > 400, "\(r.box)") }
    }

    @Test("standing books with things lying on their tops and a striped board below are no pile: their middle is read standing")
    func topsAndBoardNoPile() throws {
        let (width, height) = (Self.width, 1000)
        var pixels = [UInt8](repeating: 225, count: width * height)
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ gray: UInt8) {
            for y in max(0, y0)..<min(height, y1) { for x in max(0, x0)..<min(width, x1) { pixels[y * width + x] = gray } }
        }
        let tones: [UInt8] = [70, 150, 40, 120, 95, 175]
        // Standing books, 45 px wide, words running down each, from row 250 to the board; in
        // the middle (480-930) all of one tone, their edges unseen (as on a row of one
        // publisher's series), their words (script, a picture) in no straight column.
        var seed: UInt32 = 7
        func next(_ n: Int) -> Int { seed = seed &* 1_103_515_245 &+ 12345; return Int((seed >> 16) % UInt32(n)) }
        for (i, left) in stride(from: 20, to: width - 45, by: 45).enumerated() {
            let plain = left >= 480 && left < 930
            let tone: UInt8 = plain ? 150 : tones[(i + 2) % tones.count]
            fill(left, 250, left + (plain ? 45 : 43), 860, tone)
            for y in stride(from: 300, to: 820, by: 26) {
                let dx = plain ? next(28) : 17
                fill(left + dx, y, left + dx + 10, y + 16, tone > 110 ? 20 : 240)
            }
        }
        // Magazines lying on the middle books' tops (rows 30-245), stripes 30 px apart.
        for (i, top) in stride(from: 30, to: 240, by: 30).enumerated() { fill(480, top, 930, top + 26, tones[i % tones.count]) }
        // A board with stripes along it.
        for (i, top) in stride(from: 870, to: 990, by: 20).enumerated() { fill(0, top, width, top + 16, i % 2 == 0 ? 90 : 160) }
        let layout = try SpineFinder().spines(in: try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels)))
        let middle = layout.regions.filter { $0.box.y < 700 && $0.box.y + $0.box.height > 400 }
        // The books under the magazines are standing spines; nothing there lies.
        #expect(!middle.contains { $0.layout == .lyingSpine && $0.box.x + $0.box.width / 2 > 480 && $0.box.x + $0.box.width / 2 < 930 },
                "\(middle.filter { $0.layout == .lyingSpine }.map(\.box))")
        #expect(middle.filter { $0.layout == .spine && $0.box.x + $0.box.width / 2 > 500 && $0.box.x + $0.box.width / 2 < 910 }.count >= 6)
    }

    @Test("a pile's edges: the longest run with no gap over the limit", arguments: [
        ([7, 13, 55, 73, 149, 172, 189, 197, 213, 228, 851, 857, 870, 888, 894], 90, [7, 13, 55, 73, 149, 172, 189, 197, 213, 228]),
        ([12, 33, 67, 154, 167, 186], 251, [12, 33, 67, 154, 167, 186]),
        ([0, 100, 110, 120, 400, 410], 50, [100, 110, 120]),
        ([5], 1, [5]),
        ([], 10, []),
    ] as [([Double], Double, [Double])])
    func longestRun(positions: [Double], gap: Double, run: [Double]) {
        #expect(SpineFinder.longestRun(positions, maximumGap: gap) == run)
    }

    @Test("a shelf of standing books only has no stack")
    func standingOnly() throws {
        let layout = try SpineFinder().spines(in: try Self.photo(stackEnd: nil))
        #expect(layout.regions.count >= 15)
        #expect(layout.regions.allSatisfy { $0.layout == .spine })
    }
}

/// Spines leaning together, and a pile on one shelf, drawn by hand (flat grays with dark or
/// light "words"), so the right regions are known.
@Suite("Spine finder: leaning spines and a pile on one shelf")
struct LeaningAndPiledTests {
    /// A canvas of `width` x `height` on a light wall.
    struct Canvas {
        let width: Int, height: Int
        var pixels: [UInt8]
        init(width: Int, height: Int) { self.width = width; self.height = height; pixels = [UInt8](repeating: 225, count: width * height) }
        /// A box, its rows shifted by `slope` px per row from the box's middle row.
        mutating func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ gray: UInt8, slope: Double = 0) {
            let middle = Double(y0 + y1) / 2
            for y in max(0, y0)..<min(height, y1) {
                let shift = Int(((Double(y) - middle) * slope).rounded())
                for x in max(0, x0 + shift)..<min(width, x1 + shift) { pixels[y * width + x] = gray }
            }
        }
        func image() throws -> PixImage { try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels)) }
    }
    static let tones: [UInt8] = [70, 150, 40, 120, 95, 175]

    /// Standing books `thickness` px wide from `x0` to `x1`, leaning by `slope` (px per row),
    /// between rows `y0` and `y1`, words running down each.
    static func standing(_ c: inout Canvas, x0: Int, x1: Int, y0: Int, y1: Int, thickness: Int = 45, slope: Double = 0) {
        for (i, left) in stride(from: x0, to: x1 - thickness, by: thickness).enumerated() {
            let tone = tones[(i + 2) % tones.count]
            c.fill(left, y0, left + thickness - 2, y1, tone, slope: slope)
            let middle = Double(y0 + y1) / 2
            for y in stride(from: y0 + 60, to: y1 - 60, by: 26) {
                let shift = Int(((Double(y + 8) - middle) * slope).rounded())
                let mid = left + thickness / 2 - 5 + shift
                c.fill(mid, y, mid + 10, y + 16, tone > 110 ? 20 : 240)
            }
        }
    }

    @Test("spines leaning 12 degrees are one region each, turned back by their lean, not cut into upright windows")
    func leaningSpines() throws {
        var c = Canvas(width: 1400, height: 640)
        let slope = tan(12 * Double.pi / 180)
        Self.standing(&c, x0: 120, x1: 1280, y0: 40, y1: 600, slope: slope)
        let regions = try SpineFinder().spines(in: try c.image()).regions
        // 25 books, each a region of its own leaning like it (a region may hold two where an
        // edge went unseen), never an upright window across several; the wall at each end
        // makes a region or two more.
        let books = regions.filter { abs(abs($0.lean) - 12) <= 2.5 }
        #expect(books.count >= 22 && regions.count <= 30, "\(books.count) leaning of \(regions.count) regions")
        for r in books {
            if let band = r.band { #expect(band.upperBound - band.lowerBound <= 100, "band \(band)") }
        }
    }

    @Test("a face-out cover beside standing books is cut into windows, marked as such; the spines between edges are not")
    func windowsMarked() throws {
        var c = Canvas(width: 1400, height: 640)
        Self.standing(&c, x0: 40, x1: 640, y0: 40, y1: 600)
        // The cover: one box, a picture of scattered marks on it, no long edge inside it either way.
        c.fill(700, 60, 1320, 600, 150)
        var seed: UInt32 = 7
        func next(_ n: Int) -> Int { seed = seed &* 1_103_515_245 &+ 12345; return Int((seed >> 16) % UInt32(n)) }
        for _ in 0..<160 {
            let x = 730 + next(540), y = 90 + next(480)
            c.fill(x, y, x + 8 + next(20), y + 8 + next(20), next(2) == 0 ? 30 : 230)
        }
        let regions = try SpineFinder().spines(in: try c.image()).regions
        func middle(_ r: TextRegion) -> Int { r.box.x + r.box.width / 2 }
        let spines = regions.filter { middle($0) < 600 }, cover = regions.filter { middle($0) > 760 && middle($0) < 1260 }
        #expect(spines.count >= 10 && spines.allSatisfy { !$0.window }, "\(spines.filter(\.window).count) of \(spines.count) spines marked as windows")
        #expect(cover.count >= 3 && cover.allSatisfy(\.window), "\(cover.filter(\.window).count) of \(cover.count) cover regions marked as windows: \(cover.map { "\($0.box.x)+\($0.box.width)\($0.window ? "w" : "")" })")
    }

    @Test("a pile lying on one shelf beside standing books is read as lying books; the shelf below stays standing")
    func pileOnOneShelf() throws {
        var c = Canvas(width: 1400, height: 1000)
        // Top shelf (rows 40-440): standing books left of 700, a pile of books lying to its right.
        Self.standing(&c, x0: 20, x1: 700, y0: 40, y1: 440)
        for (i, top) in stride(from: 90, to: 430, by: 50).enumerated() {
            let tone = Self.tones[i % Self.tones.count]
            c.fill(740, top, 1360 - (i % 3) * 40, top + 47, tone)
            for x in stride(from: 780, to: 1240, by: 26) { c.fill(x, top + 16, x + 16, top + 30, tone > 110 ? 20 : 240) }
        }
        // A board, then a shelf of standing books only.
        c.fill(0, 450, 1400, 490, 110)
        Self.standing(&c, x0: 20, x1: 1380, y0: 520, y1: 980)
        let regions = try SpineFinder().spines(in: try c.image()).regions
        let lying = regions.filter { $0.layout == .lyingSpine }
        for top in stride(from: 90, to: 430, by: 50) {
            #expect(lying.contains { $0.box.y <= top + 23 && $0.box.y + $0.box.height >= top + 23 && $0.box.x < 1000 }, "pile book at \(top)")
        }
        for r in lying { #expect(r.box.y + r.box.height / 2 < 450 && r.box.x + r.box.width / 2 > 700, "\(r.box)") }
        // No standing region in the pile's part of the top shelf; the lower shelf all standing.
        let standing = regions.filter { $0.layout == .spine }
        for r in standing where r.box.y + r.box.height / 2 < 450 { #expect(r.box.x + r.box.width / 2 < 760, "\(r.box)") }
        #expect(standing.filter { $0.box.y + $0.box.height / 2 > 500 }.count >= 25)
    }

    @Test("two neighbouring spines nine grays apart are told apart by a faint edge; a spine's own text lines are not edges")
    func faintEdgeBetweenSpines() throws {
        // Twelve spines 60 px wide, dark and light in turn, except the sixth and seventh: 120
        // and 129 (an edge the usual threshold of 12 grays does not see). Each carries letters
        // down its middle, of varied widths and places across (as a line of text's are).
        var c = Canvas(width: 1000, height: 600)
        let grays: [UInt8] = [60, 180, 60, 180, 60, 120, 129, 60, 180, 60, 180, 60]
        var seed: UInt32 = 12345
        func next(_ n: Int) -> Int { seed = seed &* 1_103_515_245 &+ 12345; return Int((seed >> 16) % UInt32(n)) }
        for (i, gray) in grays.enumerated() {
            let left = 140 + i * 60
            c.fill(left, 40, left + 60, 560, gray)
            var y = 100
            while y < 500 {
                let height = 8 + next(10), x = left + 18 + next(8), width = 10 + next(10)
                c.fill(x, y, x + width, y + height, gray > 100 ? 20 : 240)
                y += height + 3 + next(5)
            }
        }
        let photo = try c.image()
        var finder = SpineFinder()
        func bands(_ finder: SpineFinder) throws -> [ClosedRange<Double>] {
            try finder.spines(in: photo).regions.compactMap(\.band)
        }
        finder.faintEdgeSearch = true
        let with = try bands(finder)
        // The sixth spine (440-500) is a region of its own, and no spine is cut in two.
        #expect(with.contains { $0.lowerBound >= 430 && $0.upperBound <= 510 }, "\(with)")
        #expect(with.allSatisfy { $0.upperBound - $0.lowerBound >= 45 }, "\(with)")
        finder.faintEdgeSearch = false
        let without = try bands(finder)
        #expect(!without.contains { $0.lowerBound >= 430 && $0.upperBound <= 510 }, "\(without)")
    }
}
