import Foundation

/// A part of a photo worth reading: one spine (or a few, when their edges could not be told
/// apart), a book lying in a stack, or a whole cover.
public struct TextRegion: Sendable, Equatable {
    /// How the region's text runs, which decides the turns tried when reading it.
    public enum Layout: String, Sendable, Codable {
        /// A standing spine: text runs up or down, so the crop is read turned 90 and 270 degrees.
        case spine
        /// A book lying flat: text runs left to right (or upside down), read at 0 and 180 degrees.
        case lyingSpine
        /// A front cover or other upright text: read as it is.
        case cover
    }

    public let layout: Layout
    /// Bounding box in the upright full-resolution image.
    public let box: BoundingBox
    /// How far the spine leans from upright (or from level, for lying spines), clockwise degrees
    /// as seen in the photo: the crop is turned back by this much before reading.
    public let lean: Double
    /// The typical spine thickness in this shelf row, full-resolution pixels: a hint at text size
    /// when the region holds several spines.
    public let typicalThickness: Double
    /// Shelf row (or stack) this region belongs to, and its place along that row.
    public let row: Int
    public let index: Int
    /// The spine itself, between its two edges, across the region (x for standing spines, y for
    /// lying ones; full-resolution pixels, measured at the row's middle). The box around it
    /// also holds slivers of the neighbours (margins, lean): the band tells a line of the spine
    /// from a neighbour's (`holds`), is what is read alone when the whole crop gives nothing of
    /// the spine, and gives the spine's own gray (`RegionReader.spineGrayPadding`).
    public var band: ClosedRange<Double>? = nil
    /// Read in the photo's losing orientation as well, as a hedge (`SpineFinder.bothWays`: a
    /// pile on a standing row, books standing beside a pile). Such a region is read once
    /// (`RegionReader.read`) and skipped by the later passes, unless any hedge of the photo
    /// reads a word surely: then they are all spines like the others (`TextStage.read`).
    public var hedge = false
    /// Cut from a space too wide for one spine (no edge found inside it), overlapping its
    /// neighbours by half (`SpineFinder.regions`).
    public var window = false

    /// True when `line` (a box in the photo) lies on the spine itself rather than on a
    /// neighbour's sliver: its middle, across the spine, falls within the band, give or take
    /// what the lean shifts it by away from the row's middle. Always true without a band.
    public func holds(_ line: BoundingBox) -> Bool {
        guard let band, layout != .cover else { return true }
        let standing = layout == .spine
        let across = standing ? Double(line.x) + Double(line.width) / 2 : Double(line.y) + Double(line.height) / 2
        let along = standing ? Double(line.y) + Double(line.height) / 2 : Double(line.x) + Double(line.width) / 2
        let middle = standing ? Double(box.y) + Double(box.height) / 2 : Double(box.x) + Double(box.width) / 2
        let slack = abs((along - middle) * tan(lean * .pi / 180)) + 2
        return across >= band.lowerBound - slack && across <= band.upperBound + slack
    }

    /// The spine's outline in the photo, corner by corner (top left, top right, bottom right,
    /// bottom left, for a standing spine): its band across, the box's extent along, slanted by
    /// the lean; nil when it does not lean (under half a degree) or has no band, where the box
    /// is the outline.
    public var outline: [Point]? {
        guard let band, layout != .cover, abs(lean) >= 0.5 else { return nil }
        let slope = tan(lean * .pi / 180)
        if layout == .spine {
            // Clockwise: the top leans right of the row's middle, the bottom left.
            let middle = Double(box.y) + Double(box.height) / 2
            let top = Double(box.y), bottom = Double(box.y + box.height)
            let shiftTop = (middle - top) * slope, shiftBottom = (middle - bottom) * slope
            return [Point(x: band.lowerBound + shiftTop, y: top), Point(x: band.upperBound + shiftTop, y: top),
                    Point(x: band.upperBound + shiftBottom, y: bottom), Point(x: band.lowerBound + shiftBottom, y: bottom)]
        }
        // Lying: clockwise, the right end lies below the middle, the left end above it.
        let middle = Double(box.x) + Double(box.width) / 2
        let left = Double(box.x), right = Double(box.x + box.width)
        let shiftLeft = (left - middle) * slope, shiftRight = (right - middle) * slope
        return [Point(x: left, y: band.lowerBound + shiftLeft), Point(x: right, y: band.lowerBound + shiftRight),
                Point(x: right, y: band.upperBound + shiftRight), Point(x: left, y: band.upperBound + shiftLeft)]
    }

    /// The same region (row, place, band, hedge, window) over another `box`, at another `lean`,
    /// its band moved out by `grow` on each side: the retries that crop a spine otherwise
    /// (`RegionReader.readLeaned`, `readWidened`).
    func reshaped(box: BoundingBox? = nil, lean: Double? = nil, grow: Double = 0) -> TextRegion {
        var other = TextRegion(layout: layout, box: box ?? self.box, lean: lean ?? self.lean,
                               typicalThickness: typicalThickness, row: row, index: index)
        other.band = band.map { ($0.lowerBound - grow)...($0.upperBound + grow) }
        other.hedge = hedge
        other.window = window
        return other
    }

    /// Quarter turns (clockwise) to try when reading.
    public var quarterTurns: [Int] {
        switch layout {
        case .spine: [1, 3]
        case .lyingSpine: [0, 2]
        case .cover: [0]
        }
    }
}

/// Finds shelf rows and the spines standing (or lying) in them.
///
/// Works on a reduced gray copy (about 1000 px on the long side): spine edges are long, nearly
/// straight lines that run across a whole shelf row, so for each row it accumulates short
/// edge pixels along near-vertical lines (a Hough transform restricted to leans of up to 20
/// degrees) and keeps the lines that are supported along most of the row. Text strokes, pictures
/// and patterns make only short runs and do not qualify. Books lying flat are found the same way
/// on the transposed image.
public struct SpineFinder: Sendable {
    /// Long side of the analysis copy.
    public var analysisSide = 1000
    /// A line must have edge support over this fraction of its row to count as a spine edge.
    public var minimumSupport = 0.45
    /// Leans tried, in degrees either way. Half-empty shelves fan their books out past 14°
    /// (the limit until 2026-11-24): at 20 the real shelves found 211 of 615 books instead of
    /// 208, with 23 unconfirmed instead of 25 (deadline off); the rendered shelves were unchanged.
    /// Lying books too: keeping 14 for them saved a blurred front cover whose text lines pass
    /// for a pile at 20 (read as six spines: 161 to 478 ms) but brought back an invented book and
    /// two unconfirmed ones on the real piles.
    public var maximumLean = 20.0

    /// Spaces too wide for one spine are searched for a faint edge (`faintEdges`;
    /// `SHELFSCAN_FAINT=off` to compare).
    public var faintEdgeSearch = ProcessInfo.processInfo.environment["SHELFSCAN_FAINT"] != "off"

    public init() {}

    /// What the finder saw.
    public struct Layout: Sendable {
        /// Spine regions, rows top to bottom (or stacks left to right), spines along each row.
        public let regions: [TextRegion]
        /// Spine edges found, standing and lying: tells shelves from covers.
        public let standingEdges: Int
        public let lyingEdges: Int
        /// The regions of the orientation that lost the vote (lying books when the photo was
        /// taken for a standing shelf, and the other way round), when it had edges enough: read
        /// when the chosen regions name almost nothing, as a small pile on top of a standing row
        /// can outvote the row's spines.
        public var alternative: [TextRegion] = []
    }

    /// Finds the spines in `image` (the full-resolution upright photo).
    public func spines(in image: PixImage) throws(ShelfScanError) -> Layout {
        let small = try image.grayscale(fitting: analysisSide)
        let gray = try small.grayBytes()
        let scale = Double(image.width) / Double(gray.width)
        let maps = EdgeMaps(gray)
        let standing = rows(edges: maps.vertical, width: gray.width, height: gray.height, faint: maps.verticalFaint)
        let lying = rows(edges: maps.horizontalTransposed, width: gray.height, height: gray.width, faint: maps.horizontalTransposedFaint)
        let standingCount = standing.reduce(0) { $0 + $1.lines.count - 2 }
        let lyingCount = lying.reduce(0) { $0 + $1.lines.count - 2 }
        // The orientation with more long edges is how the books stand; a few edges either way
        // (a cover's frame, a table's edge) make no shelf. A line that runs on through the next
        // row (a shelf board, the tops of a row of books, seen as lying edges) counts once: a
        // standing shelf cut into several "stacks" by its own horizontal lines must not outvote
        // its spines.
        let distinctStanding = Self.distinctEdges(standing, side: gray.width)
        let distinctLying = Self.distinctEdges(lying, side: gray.height)
        let useLying = distinctLying > distinctStanding
        if Self.trace {
            FileHandle.standardError.write(Data("spines: distinct standing \(distinctStanding) lying \(distinctLying) \(gray.width)x\(gray.height) standing \(standingCount) \(Self.describe(standing))\n   lying \(lyingCount) \(Self.describe(lying))\n".utf8))
        }
        let found = useLying ? lying : standing
        guard max(standingCount, lyingCount) >= 3 else {
            return Layout(regions: [], standingEdges: standingCount, lyingEdges: lyingCount)
        }
        func regionsOf(_ rows: [Row], lying: Bool, firstRow: Int = 0) -> [TextRegion] {
            var regions: [TextRegion] = []
            for (rowIndex, row) in rows.enumerated() {
                regions += self.regions(in: row, rowIndex: firstRow + rowIndex, lying: lying, scale: scale,
                                        imageWidth: image.width, imageHeight: image.height,
                                        edges: lying ? maps.horizontalTransposed : maps.vertical,
                                        mapWidth: lying ? gray.height : gray.width)
            }
            return regions
        }
        var regions = regionsOf(found, lying: useLying)
        var alternative = min(standingCount, lyingCount) >= 3 ? regionsOf(useLying ? standing : lying, lying: !useLying) : []
        // Both ways: a pile on top of a standing row (or books standing beside a pile) gives
        // the losing orientation many edges of its own. Its regions are read as well, in rows of
        // their own, and matching keeps whichever reading names a book on each part.
        if Self.readBoth, !alternative.isEmpty,
           Double(useLying ? distinctStanding : distinctLying) >= Self.bothWays * Double(useLying ? distinctLying : distinctStanding) {
            regions += regionsOf(useLying ? standing : lying, lying: !useLying, firstRow: 1000).map { r in
                var hedge = r
                hedge.hedge = Self.hedgeOnce
                return hedge
            }
            alternative = []
        }
        // A stack lying beside standing books: its part of the photo is read as a stack.
        if !useLying && Self.findStacks {
            var rowIndex = found.count
            var piles = stacks(maps, width: gray.width, height: gray.height).map { (stack: $0, row: Int?.none) }
            // A pile on one shelf (a row's end piled flat, under the next board): too short
            // against the whole photo, it is looked for within its row too.
            if Self.rowStacks {
                for (r, row) in found.enumerated() where Double(row.bottom - row.top) < 0.7 * Double(gray.height) {
                    let part = maps.rows(row.top..<row.bottom)
                    for var stack in stacks(part, width: gray.width, height: row.bottom - row.top, minimumStanding: (row.bottom - row.top) / 2)
                    where !piles.contains(where: { $0.stack.x0 < stack.x1 && stack.x0 < $0.stack.x1 }) {
                        for i in stack.rows.indices {
                            for j in stack.rows[i].lines.indices { stack.rows[i].lines[j].position += Double(row.top) }
                        }
                        piles.append((stack, r))
                    }
                }
            }
            for (stack, row) in piles {
                let lo = Double(stack.x0) * scale, hi = Double(stack.x1) * scale
                regions.removeAll { r in
                    let middle = Double(r.box.x) + Double(r.box.width) / 2
                    return r.layout == .spine && middle >= lo && middle <= hi && (row == nil || r.row == row)
                }
                for row in stack.rows {
                    regions += self.regions(in: row, rowIndex: rowIndex, lying: true, scale: scale,
                                            imageWidth: image.width, imageHeight: image.height,
                                            edges: maps.horizontalTransposed, mapWidth: gray.height)
                    rowIndex += 1
                }
            }
        }
        return Layout(regions: regions, standingEdges: standingCount, lyingEdges: lyingCount, alternative: alternative)
    }

    /// Rows and their edges (position@support) for the traces.
    static func describe(_ rows: [Row]) -> String {
        rows.map { r in "[\(r.top)-\(r.bottom): " + r.lines.dropFirst().dropLast().map { String(format: "%.0f@%.2f", $0.position, $0.support) }.joined(separator: " ") + "]" }.joined(separator: " ")
    }

    /// The losing orientation is read too when its distinct edges are at least this share of
    /// the winner's. At 0.4, 7 of the 37 real photos are read both ways: `jo1`'s pile on its
    /// standing row gave 3 more books (An Evil Cradling, Black Diamonds..., No More Clutter),
    /// the other six nothing more and nothing less, at up to twice the OCR time (`ruth1` 8.6 to
    /// 15 s, `liz14` 1.6 to 6.4 s with the deadline off).
    static let bothWays = 0.4
    /// `SHELFSCAN_HEDGE=full`: the losing orientation's regions are retried like the winner's
    /// (for measuring; `TextRegion.hedge`).
    static let hedgeOnce = ProcessInfo.processInfo.environment["SHELFSCAN_HEDGE"] != "full"
    /// `SHELFSCAN_BOTH=off` reads only the winning orientation (for measuring).
    static let readBoth = ProcessInfo.processInfo.environment["SHELFSCAN_BOTH"] != "off"

    /// `SHELFSCAN_ROW_STACKS=off` looks for stacks across the whole photo only (for measuring).
    static let rowStacks = ProcessInfo.processInfo.environment["SHELFSCAN_ROW_STACKS"] != "off"

    /// `SHELFSCAN_STACKS=off` turns `stacks` off (for measuring what it does).
    static let findStacks = ProcessInfo.processInfo.environment["SHELFSCAN_STACKS"] != "off"

    /// A part of the photo, across, where books lie stacked among standing ones.
    struct Stack {
        var x0: Int
        var x1: Int
        /// The stack's rows, lying (transposed) coordinates of the whole map.
        var rows: [Row]
    }

    /// Stacks beside standing books (a shelf's end piled flat, a pile where the row stops). The photo's layout is decided as a whole, and a stack's lying edges, spanning
    /// only part of the width, are too short to count there: so windows a third of the width
    /// across, a sixth apart, are weighed on their own; where lying edges clearly outnumber
    /// standing ones, the windows together are taken as a stack, whose standing regions give way.
    /// `minimumStanding`: standing books are at least this tall (within one shelf row, the
    /// row's text lines on the pile's books are not rows of standing books).
    func stacks(_ maps: EdgeMaps, width: Int, height: Int, minimumStanding: Int = 0) -> [Stack] {
        let window = width / 3, step = width / 6
        guard window >= 40, height >= 40 else { return [] }
        func lyingRows(_ x0: Int, _ x1: Int) -> [Row] {
            let slice = Array(maps.horizontalTransposed[(x0 * height)..<(x1 * height)])
            return rows(edges: slice, width: height, height: x1 - x0).map { r in
                var shifted = r
                shifted.top += x0
                shifted.bottom += x0
                return shifted
            }
        }
        func isStack(_ x0: Int, _ x1: Int) -> (Bool, [Row]) {
            // A pile's books are long (a book's height, across the photo): narrow bands of
            // horizontal edges are covers' stripes and text on standing books.
            let lying = lyingRows(x0, x1).filter { $0.bottom - $0.top >= width / 5 }
            // Books in a pile are each a few hundredths of the photo thick, one above another,
            // their edges strong: edges closer than that are one (a shelf board's, the stripes
            // at the feet of standing spines), weak ones may be text lines, and the pile is a
            // good part of the photo tall.
            let all = lying.flatMap { r in
                r.lines.dropFirst().dropLast().filter { $0.support >= Self.weakEdgeSupport }.map(\.position)
            }.sorted()
            // And they lie one on another: no book is half as thick as it is long (the window's
            // width, at least), so a wider gap between edges is no book but two things apart. A
            // standing row's tops (or what lies on them) and its shelf board, with the titles'
            // letters between, are no pile (`ruth1`: edges at 7-228 and 851-894 of 1000).
            let positions = Self.pileEdges ? Self.longestRun(all, maximumGap: Self.pileGap * Double(x1 - x0)) : all
            var books = 0, last = -Double.infinity
            for p in positions where p - last >= 0.025 * Double(height) { books += 1; last = p }
            let tall = (positions.last ?? 0) - (positions.first ?? 0) >= 0.3 * Double(height)
            let flat = min(books, Self.distinctEdges(lying, side: height))
            guard tall && flat >= Self.stackEdges else { return (false, lying) }
            // And they outnumber the standing edges there twice.
            var columns = [UInt8](repeating: 0, count: (x1 - x0) * height)
            for y in 0..<height {
                for x in x0..<x1 { columns[y * (x1 - x0) + (x - x0)] = maps.vertical[y * width + x] }
            }
            let standingRows = rows(edges: columns, width: x1 - x0, height: height).filter { $0.bottom - $0.top >= minimumStanding }
            let standing = Self.distinctEdges(standingRows, side: x1 - x0)
            return (flat >= 2 * standing, lying)
        }
        // Runs of windows holding a stack, with the rows of the window that found the most edges.
        var spans: [(a: Int, b: Int, best: [Row])] = []
        var x0 = 0
        while x0 + window <= width {
            // The last window runs on to the photo's edge.
            let x1 = x0 + window + step > width ? width : x0 + window
            let (stack, rows) = isStack(x0, x1)
            if stack {
                let edges = rows.reduce(0) { $0 + $1.lines.count }
                if let last = spans.last, last.b >= x0 {
                    spans[spans.count - 1].b = x1
                    if edges > last.best.reduce(0, { $0 + $1.lines.count }) { spans[spans.count - 1].best = rows }
                } else {
                    spans.append((x0, x1, rows))
                }
            }
            x0 += step
        }
        var out: [Stack] = []
        for (a, b, best) in spans where Double(b - a) < 0.85 * Double(width) {
            // The span as a whole; or, when its books differ in length too much for their edges
            // to run along most of it, the best window's edges drawn on across the span.
            var (stack, rows) = isStack(a, b)
            if !stack || rows.isEmpty {
                rows = best.map { row in
                    let top = min(row.top, a), bottom = max(row.bottom, b)
                    var wider = Row(top: top, bottom: bottom, lines: [])
                    wider.lines = row.lines.map { line in
                        Line(position: line.x(at: wider.middle, middle: row.middle), slope: line.slope, support: line.support)
                    }
                    return wider
                }
            }
            guard !rows.isEmpty else { continue }
            let lo = rows.map(\.top).min()!, hi = rows.map(\.bottom).max()!
            out.append(Stack(x0: lo, x1: hi, rows: rows))
        }
        if Self.trace {
            FileHandle.standardError.write(Data("stacks: \(out.map { "\($0.x0)-\($0.x1) \(Self.describe($0.rows))" })\n".utf8))
        }
        return out
    }

    /// The longest run of `positions` (sorted) with no gap wider than `maximumGap`; the first
    /// of equally long runs.
    static func longestRun(_ positions: [Double], maximumGap: Double) -> [Double] {
        var best = ArraySlice<Double>(), start = 0
        for i in positions.indices {
            if i > start, positions[i] - positions[i - 1] > maximumGap { start = i }
            if i - start + 1 > best.count { best = positions[start...i] }
        }
        return Array(best)
    }

    /// A gap between a pile's edges wider than this share of its books' length (`stacks`).
    static let pileGap = 0.5
    /// `SHELFSCAN_PILE_EDGES=any`: a pile's edges may lie any distance apart (for measuring).
    static let pileEdges = ProcessInfo.processInfo.environment["SHELFSCAN_PILE_EDGES"] != "any"

    /// Lying edges a window needs to hold a stack (besides outnumbering its standing edges twice).
    static let stackEdges = 4

    // MARK: Rows and edges (in "standing" coordinates: spines vertical; lying rows are transposed)

    /// A straight line x = position + (y - middle) * slope across a row.
    struct Line {
        var position: Double
        var slope: Double
        var support: Double
        func x(at y: Double, middle: Double) -> Double { position + (y - middle) * slope }
    }

    struct Row {
        var top: Int
        var bottom: Int
        /// Spine edges left to right, the image's sides included.
        var lines: [Line]
        var middle: Double { Double(top + bottom - 1) / 2 }
    }

    /// `SHELFSCAN_SLIVERS=keep` turns `withoutSlivers` off (for measuring what it does).
    static let mergeSlivers = ProcessInfo.processInfo.environment["SHELFSCAN_SLIVERS"] != "keep"

    /// `SHELFSCAN_TRACE_SPINES=1` prints each photo's rows and edges, standing and lying, on stderr.
    static let trace = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_SPINES"] != nil

    /// Drops the edges that only cut a spine in two. The boundary of a long line of text on a
    /// spine is straight and long enough to pass for a spine edge, but it is weaker (text runs
    /// along part of the spine) and it leaves a sliver much thinner than the spines around it.
    /// While a space is under half the typical width, its weaker edge goes if it is weak (faint
    /// in absolute terms and beside the row's other edges); thin books between two strong edges
    /// stay.
    static func withoutSlivers(_ input: [Line]) -> [Line] {
        var lines = input
        guard lines.count >= 4 else { return lines }
        let widths = zip(lines, lines.dropFirst()).map { $1.position - $0.position }.sorted()
        let typical = widths[widths.count / 2]
        // Weak for this row: in a dim or shaded photo every edge is faint, and a text line is
        // only a fainter one.
        let supports = lines.dropFirst().dropLast().map(\.support).sorted()
        let weak = min(weakEdgeSupport, 0.8 * supports[supports.count / 2])
        while true {
            var weakest: (index: Int, support: Double)?
            for i in 0..<(lines.count - 1) where lines[i + 1].position - lines[i].position < 0.5 * typical {
                // Never the image's sides (the first and last lines).
                let sides = [i, i + 1].filter { $0 > 0 && $0 < lines.count - 1 }
                guard let edge = sides.min(by: { lines[$0].support < lines[$1].support }),
                      lines[edge].support < weak else { continue }
                if weakest.map({ lines[edge].support < $0.support }) ?? true { weakest = (edge, lines[edge].support) }
            }
            guard let weakest else { return lines }
            lines.remove(at: weakest.index)
        }
    }

    /// Edges supported along less than this fraction of their row may be text-line boundaries.
    static let weakEdgeSupport = 0.65

    /// Spine edges over all rows, a line continuing straight on in the row after counted once.
    /// Lines closer than `twinGap` (0.6% of the side) count as one: the two sides of one thick
    /// edge (a shelf board's lip, a picture's frame) are not two books (a board seen as a dozen
    /// lying edges 4 px apart decided a standing shelf was a stack).
    static func distinctEdges(_ rows: [Row], side: Int) -> Int {
        let tolerance = max(6, 0.015 * Double(side))
        let twinGap = max(3, 0.006 * Double(side))
        var count = 0
        for (i, row) in rows.enumerated() {
            var last = -Double.infinity
            for line in row.lines.dropFirst().dropLast() {
                defer { last = line.position }
                if line.position - last < twinGap { continue }
                guard i > 0 else { count += 1; continue }
                let previous = rows[i - 1]
                // Where this line meets the boundary with the row above, against where each line
                // of that row ends.
                let boundary = Double(row.top)
                let here = line.x(at: boundary, middle: row.middle)
                let continued = previous.lines.dropFirst().dropLast().contains { other in
                    abs(other.x(at: boundary, middle: previous.middle) - here) <= tolerance
                }
                if !continued { count += 1 }
            }
        }
        return count
    }

    /// The mean of each `window` values centred on each one (a running sum; the ends average
    /// what there is, divided by the whole window).
    static func movingAverage(_ values: [Double], window k: Int) -> [Double] {
        var smooth = [Double](repeating: 0, count: values.count)
        var running = 0.0
        for i in 0..<(values.count + k / 2) {
            if i < values.count { running += values[i] }
            if i - k >= 0 { running -= values[i - k] }
            let centre = i - k / 2
            if centre >= 0 && centre < values.count { smooth[centre] = running / Double(k) }
        }
        return smooth
    }

    /// The value nine tenths of the way up `values` (0 when empty).
    static func upperDecile(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))]
    }

    /// Rows are horizontal bands dense in standing edges; each gets its spine edges.
    /// `faint`: the edges of a lower gradient threshold, where a space too wide for one spine
    /// is searched for the edge between two spines of nearly one gray (`faintEdges`).
    func rows(edges: [UInt8], width: Int, height: Int, faint: [UInt8]? = nil) -> [Row] {
        guard width > 8, height > 8 else { return [] }
        var profile = [Double](repeating: 0, count: height)
        for y in 0..<height {
            var n = 0
            let base = y * width
            for x in 0..<width where edges[base + x] != 0 { n += 1 }
            profile[y] = Double(n) / Double(width)
        }
        let smooth = Self.movingAverage(profile, window: max(3, height / 50))
        let p90 = Self.upperDecile(smooth)
        guard p90 > 0.01 else { return [] }
        let threshold = 0.3 * p90
        var bands: [(Int, Int)] = []
        var y = 0
        while y < height {
            guard smooth[y] > threshold else { y += 1; continue }
            let start = y
            while y < height && smooth[y] > threshold { y += 1 }
            if Double(y - start) >= Double(height) * 0.08 { bands.append((start, y)) }
        }
        // Spines stand above and below the densest part (their ends carry little text): grow each
        // band while some edges remain (hysteresis), plus a small margin.
        let low = 0.1 * p90
        let grow = height / 50
        var rows: [Row] = []
        for (i, band) in bands.enumerated() {
            var top = band.0, bottom = band.1
            let ceiling = i > 0 ? bands[i - 1].1 : 0, floor = i + 1 < bands.count ? bands[i + 1].0 : height
            while top > ceiling && smooth[top - 1] > low { top -= 1 }
            while bottom < floor && smooth[bottom] > low { bottom += 1 }
            top = max(ceiling, top - grow)
            bottom = min(floor, bottom + grow)
            var row = Row(top: top, bottom: bottom, lines: [])
            row.lines = spineEdges(edges: edges, width: width, row: row)
            if Self.mergeSlivers { row.lines = Self.withoutSlivers(row.lines) }
            if faintEdgeSearch, let faint { row.lines = faintEdges(row.lines, faint: faint, width: width, row: row) }
            rows.append(row)
        }
        return rows
    }

    /// `lines` with the edges found in `faint` (a lower gradient threshold) inside spaces wider
    /// than `faintSpan` typical spines: two spines of nearly one gray (a blurred photo, a dark
    /// spine beside a dark one) read as one region, title lines of both run together. Only
    /// lines supported along `faintSupport` of the row (text lines along a spine run a part of
    /// it) and `faintMargin` typical spines from the space's sides (not a sliver).
    func faintEdges(_ lines: [Line], faint: [UInt8], width: Int, row: Row) -> [Line] {
        guard lines.count >= 3 else { return lines }
        let widths = zip(lines, lines.dropFirst()).map { $1.position - $0.position }.sorted()
        let typical = widths[widths.count / 2]
        let wide = zip(lines, lines.dropFirst()).filter { $1.position - $0.position >= Self.faintSpan * typical }
        guard !wide.isEmpty else { return lines }
        var strict = self
        strict.minimumSupport = Self.faintSupport
        let candidates = strict.spineEdges(edges: faint, width: width, row: row).dropFirst().dropLast()
        var out = lines
        let middle = Double(row.bottom - row.top - 1) / 2
        for (left, right) in wide {
            // The strongest candidate well inside the space, crossing neither side.
            let inside = candidates.filter { c in
                [-middle, middle].allSatisfy { y in
                    let x = c.x(at: y + middle, middle: middle)
                    return x - left.x(at: y + middle, middle: middle) >= Self.faintMargin * typical
                        && right.x(at: y + middle, middle: middle) - x >= Self.faintMargin * typical
                }
            }
            if let best = inside.max(by: { $0.support < $1.support }) { out.append(best) }
        }
        return out.sorted { $0.position < $1.position }
    }

    static let faintSpan = 1.6
    static let faintSupport = 0.7
    static let faintMargin = 0.4

    /// Near-vertical lines with edge support along most of the row, strongest first, with no
    /// two crossing or closer than a thin spine; the image's sides close the first and last spine.
    func spineEdges(edges: [UInt8], width: Int, row: Row) -> [Line] {
        let h = row.bottom - row.top
        let middle = Double(h - 1) / 2
        let step = 2.0
        let leans = stride(from: -maximumLean, through: maximumLean, by: step).map { tan($0 * .pi / 180) }
        let accumulator = leans.map { Self.support(edges: edges, width: width, row: row, slope: $0) }
        // A pixel of wobble either way (JPEG, slight curvature).
        var best = [Double](repeating: 0, count: width)
        var bestLean = [Int](repeating: 0, count: width)
        for a in 0..<leans.count {
            let acc = accumulator[a]
            for x in 0..<width {
                let v = max(acc[x], x > 0 ? acc[x - 1] : 0, x + 1 < width ? acc[x + 1] : 0)
                let support = Double(v) / Double(h)
                if support > best[x] { best[x] = support; bestLean[x] = a }
            }
        }
        let candidates = (0..<width).filter { best[$0] >= minimumSupport }.sorted { best[$0] > best[$1] }
        let minimumGap = max(4.0, Double(h) * 0.03)
        var chosen: [Line] = []
        let ends = [-middle, 0, middle]
        for x in candidates {
            let line = Line(position: Double(x), slope: leans[bestLean[x]], support: best[x])
            let clashes = chosen.contains { other in
                let gaps = ends.map { line.x(at: $0 + middle, middle: middle) - other.x(at: $0 + middle, middle: middle) }
                return gaps.contains { abs($0) < minimumGap } || (gaps[0] < 0) != (gaps[2] < 0)
            }
            if !clashes { chosen.append(line) }
        }
        chosen.sort { $0.position < $1.position }
        let left = Line(position: 0, slope: 0, support: 1), right = Line(position: Double(width - 1), slope: 0, support: 1)
        if chosen.first.map({ $0.position - minimumGap > 0 }) ?? true { chosen.insert(left, at: 0) }
        if chosen.last.map({ Double(width - 1) - $0.position > minimumGap }) ?? true { chosen.append(right) }
        return chosen
    }

    /// For each x at the row's middle, how many of the row's pixel rows have an edge pixel on
    /// the line through it at `slope` (x shifted by the slope times the distance from the middle,
    /// rounded). `edges` holds 0 or 1 a pixel.
    static func support(edges: [UInt8], width: Int, row: Row, slope: Double) -> [Int32] {
        let h = row.bottom - row.top
        let middle = Double(h - 1) / 2
        var acc = [Int32](repeating: 0, count: width)
        acc.withUnsafeMutableBufferPointer { acc in
            edges.withUnsafeBufferPointer { e in
                for yy in 0..<h {
                    let shift = Int(((Double(yy) - middle) * slope).rounded())
                    let base = (row.top + yy) * width
                    // x at the row's middle = x - shift
                    let lo = max(0, shift), hi = min(width, width + shift)
                    guard lo < hi else { continue }
                    // Edge pixels are 0 or 1: added without a branch (the loop vectorises).
                    let from = e.baseAddress! + base + lo, to = acc.baseAddress! + (lo - shift)
                    for i in 0..<(hi - lo) { to[i] &+= Int32(from[i]) }
                }
            }
        }
        return acc
    }

    /// The spaces between consecutive edges that hold something (text makes edges), as regions
    /// of the full-resolution image. Very wide spaces (an undetected edge, books face out) are
    /// cut into overlapping windows a few spines wide, so text sizes stay predictable.
    func regions(in row: Row, rowIndex: Int, lying: Bool, scale: Double, imageWidth: Int, imageHeight: Int,
                 edges: [UInt8], mapWidth: Int) -> [TextRegion] {
        let h = Double(row.bottom - row.top)
        let middle = row.middle
        var spans: [(left: Line, right: Line)] = []
        for i in 0..<(row.lines.count - 1) { spans.append((row.lines[i], row.lines[i + 1])) }
        let widths = spans.map { $0.right.position - $0.left.position }.filter { $0 >= 4 }.sorted()
        let typical = widths.isEmpty ? h * 0.15 : min(widths[widths.count / 2], h * 0.4)
        var out: [TextRegion] = []
        for span in spans {
            let width = span.right.position - span.left.position
            guard width >= 4 else { continue }
            let slope = (span.left.slope + span.right.slope) / 2
            let lean = atan(slope) * 180 / .pi
            // Windows for very wide spaces (measured at the row's middle: a leaning spine's box is
            // wide however thin the spine), overlapping by half and leaning with the space's edges.
            // `band`: where each lies at the row's middle; (a, b): its box across the whole row.
            var windows: [(a: Double, b: Double, band: (Double, Double))] = []
            if width > typical * 3 {
                let w = typical * 2
                let lo = span.left.position, hi = span.right.position
                let lines = stride(from: lo, to: hi - w / 2, by: w / 2).map { start in
                    (Line(position: start, slope: slope, support: 1), Line(position: min(hi, start + w), slope: slope, support: 1))
                }
                windows = lines.map { l, r in
                    (min(l.x(at: Double(row.top), middle: middle), l.x(at: Double(row.bottom), middle: middle)),
                     max(r.x(at: Double(row.top), middle: middle), r.x(at: Double(row.bottom), middle: middle)),
                     (l.position, r.position))
                }
            } else {
                windows = [(min(span.left.x(at: Double(row.top), middle: middle), span.left.x(at: Double(row.bottom), middle: middle)),
                            max(span.right.x(at: Double(row.top), middle: middle), span.right.x(at: Double(row.bottom), middle: middle)),
                            (span.left.position, span.right.position))]
            }
            let cut = width > typical * 3
            for (a, b, (lo, hi)) in windows {
                guard hasContent(edges: edges, width: mapWidth, x0: Int(a), x1: Int(b.rounded(.up)), row: row) else { continue }
                // Small margins: edges are found on a reduced copy.
                let pad = max(2, (b - a) * 0.08)
                let sx0 = max(0, (a - pad) * scale), sx1 = min(Double(lying ? imageHeight : imageWidth), (b + pad) * scale)
                let sy0 = max(0, Double(row.top) * scale), sy1 = min(Double(lying ? imageWidth : imageHeight), Double(row.bottom) * scale)
                let box = lying
                    ? BoundingBox(x: Int(sy0), y: Int(sx0), width: Int(sy1 - sy0), height: Int(sx1 - sx0))
                    : BoundingBox(x: Int(sx0), y: Int(sy0), width: Int(sx1 - sx0), height: Int(sy1 - sy0))
                guard box.width >= 4, box.height >= 4 else { continue }
                // Standing: a line whose bottom lies right of its top has turned anticlockwise.
                // Lying (transposed), the same slope means the line descends to the right: clockwise.
                // The band: the space between the edges at the row's middle (or the window).
                var region = TextRegion(layout: lying ? .lyingSpine : .spine, box: box, lean: lying ? lean : -lean,
                                        typicalThickness: typical * scale, row: rowIndex, index: out.count,
                                        band: (lo * scale)...(hi * scale))
                region.window = cut
                out.append(region)
            }
        }
        return out
    }

    /// True when the space holds enough edge pixels to carry text (empty shelf ends, walls and
    /// plain boards are skipped).
    func hasContent(edges: [UInt8], width: Int, x0: Int, x1: Int, row: Row) -> Bool {
        let lo = max(0, x0 + 1), hi = min(width, x1 - 1)
        guard hi - lo >= 2 else { return false }
        var n = 0
        for y in row.top..<row.bottom {
            let base = y * width
            for x in lo..<hi where edges[base + x] != 0 { n += 1 }
        }
        return Double(n) / Double((hi - lo) * (row.bottom - row.top)) > 0.02
    }
}

/// Binary maps of the edge pixels of a gray image, by direction.
struct EdgeMaps {
    /// Pixels on a mostly vertical edge (strong left-right change).
    let vertical: [UInt8]
    /// Pixels on a mostly horizontal edge, transposed (so lying spines stand).
    let horizontalTransposed: [UInt8]
    /// The same at half the gradient threshold.
    let verticalFaint: [UInt8]
    let horizontalTransposedFaint: [UInt8]
    /// The image's height.
    let height: Int

    init(_ gray: GrayBytes) {
        let w = gray.width, h = gray.height
        // Pointers, not subscripts: no bounds checks, and the sums' loop vectorises.
        var blurred = [Int32](repeating: 0, count: w * h)
        if w > 2, h > 2 {
            gray.pixels.withUnsafeBufferPointer { p in
                blurred.withUnsafeMutableBufferPointer { b in
                    let p = p.baseAddress!, b = b.baseAddress!
                    for y in 1..<(h - 1) {
                        let up = p + (y - 1) * w, mid = p + y * w, down = p + (y + 1) * w, out = b + y * w
                        for x in 1..<(w - 1) {
                            let a = Int32(up[x - 1]) + Int32(up[x]) + Int32(up[x + 1])
                            let c = Int32(mid[x - 1]) + Int32(mid[x]) + Int32(mid[x + 1])
                            let d = Int32(down[x - 1]) + Int32(down[x]) + Int32(down[x + 1])
                            out[x] = a + c + d
                        }
                    }
                }
            }
        }
        // Sums of nine: a difference of 8 gray levels is 72 here.
        let threshold: Int32 = 72
        let faint = threshold / 2
        var v = [UInt8](repeating: 0, count: w * h)
        var ht = [UInt8](repeating: 0, count: w * h)
        var vf = [UInt8](repeating: 0, count: w * h)
        var hf = [UInt8](repeating: 0, count: w * h)
        if w > 4, h > 4 {
            blurred.withUnsafeBufferPointer { b in
                v.withUnsafeMutableBufferPointer { v in
                    vf.withUnsafeMutableBufferPointer { vf in
                        ht.withUnsafeMutableBufferPointer { ht in
                            hf.withUnsafeMutableBufferPointer { hf in
                                let b = b.baseAddress!, v = v.baseAddress!, vf = vf.baseAddress!
                                let ht = ht.baseAddress!, hf = hf.baseAddress!
                                for y in 2..<(h - 2) {
                                    for x in 2..<(w - 2) {
                                        let i = y * w + x
                                        let gx = abs(b[i + 1] - b[i - 1])
                                        let gy = abs(b[i + w] - b[i - w])
                                        // Standing edges in place, written whatever they hold (0 or 1);
                                        // lying ones transposed, few, written where set.
                                        let standing = 2 * gx > 3 * gy
                                        v[i] = standing && gx > threshold ? 1 : 0
                                        vf[i] = standing && gx > faint ? 1 : 0
                                        if 2 * gy > 3 * gx, gy > faint {
                                            hf[x * h + y] = 1
                                            if gy > threshold { ht[x * h + y] = 1 }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        vertical = v
        horizontalTransposed = ht
        verticalFaint = vf
        horizontalTransposedFaint = hf
        height = h
    }

    private init(vertical: [UInt8], horizontalTransposed: [UInt8], height: Int) {
        self.vertical = vertical
        self.horizontalTransposed = horizontalTransposed
        verticalFaint = []
        horizontalTransposedFaint = []
        self.height = height
    }

    /// The maps of the image's rows `band` alone (as if the image were cut to them; without
    /// the faint maps).
    func rows(_ band: Range<Int>) -> EdgeMaps {
        let width = vertical.count / max(1, height)
        var ht = [UInt8]()
        ht.reserveCapacity(width * band.count)
        for x in 0..<width { ht += horizontalTransposed[(x * height + band.lowerBound)..<(x * height + band.upperBound)] }
        return EdgeMaps(vertical: Array(vertical[(band.lowerBound * width)..<(band.upperBound * width)]),
                        horizontalTransposed: ht, height: band.count)
    }
}
