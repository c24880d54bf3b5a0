/// A second, independent EAN-13 / UPC-A reader for the scan lines of a doubtful ZBar decode.
///
/// ZBar decodes a code from the widths between edges, and it can piece a code together from its
/// halves (each half is decoded on its own). On a clean code printed at about two pixels per
/// module, a few scan lines read the left half forwards and backwards and ZBar assembled a valid
/// EAN-13 from them that is not on the package (the shared corpus's upca-4/6): the check digit
/// passes, and no other view of the photo contradicts it, because no other view reads anything.
///
/// This reader works the other way round: it lays the whole 95-module grid of an EAN-13 over a
/// scan line's brightness profile (start and module width searched, guards and quiet zones
/// fitted first), then reads each digit as the best-matching of its allowed bar patterns. It is
/// slower and weaker than ZBar, so it never finds codes of its own; it only tells whether the
/// same line holds ZBar's code or, with a better fit, another valid one.
struct ProfileDecoder {
    /// One scan line's brightness (0 black ... 255 white) across the code and its surroundings.
    let darkness: [Double]
    /// Prefix sums of `darkness`, for averages over fractional spans.
    private let prefix: [Double]
    /// The grids whose guards and quiet zones fit best, searched once for every reading.
    private var candidates: [Grid] = []

    /// A line whose code overlaps `hint` (the span ZBar's scan lines covered, which may be half
    /// the code), with module widths in `modules`.
    init(brightness: [UInt8], hint: ClosedRange<Double>, modules: ClosedRange<Double>) {
        darkness = brightness.map { 255 - Double($0) }
        var sums = [0.0]
        sums.reserveCapacity(darkness.count + 1)
        for d in darkness { sums.append(sums.last! + d) }
        prefix = sums
        candidates = bestGrids(hint: hint, modules: modules, keep: 12)
    }

    /// A grid laid over the profile: module `i` spans `start + i * module ..< start + (i + 1) * module`.
    struct Grid {
        var start: Double
        var module: Double
    }

    /// What one line reads.
    struct Reading {
        /// The 13 digits read freely (each digit its best pattern), or nil when they do not form
        /// a valid EAN-13 (parity pattern or check digit).
        let digits: String?
        /// How well the freely read bars fit the profile (about 1 for crisp bars, 0 for noise).
        let freeFit: Double
        let grid: Grid
    }

    // MARK: Patterns

    /// The L (odd parity) patterns of digits 0-9, 1 = bar, over 7 modules.
    static let lPatterns: [[Bool]] = [
        "0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011",
    ].map { $0.map { $0 == "1" } }
    /// R patterns are L's complement; G patterns are R's mirror image.
    static let rPatterns: [[Bool]] = lPatterns.map { $0.map { !$0 } }
    static let gPatterns: [[Bool]] = rPatterns.map { Array($0.reversed()) }
    /// The parity (L or G, as true for G) of the left half's six digits, per first digit.
    static let parities: [[Bool]] = [
        "LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL",
    ].map { $0.map { $0 == "G" } }

    /// The 95 modules of an EAN-13 code (true = bar), or nil when `digits` is not 13 digits.
    static func modules(of digits: String) -> [Bool]? {
        let d = digits.compactMap(\.wholeNumberValue)
        guard d.count == 13 else { return nil }
        var m: [Bool] = [true, false, true]
        for i in 0..<6 { m += parities[d[0]][i] ? gPatterns[d[i + 1]] : lPatterns[d[i + 1]] }
        m += [false, true, false, true, false]
        for i in 7..<13 { m += rPatterns[d[i]] }
        m += [true, false, true]
        return m
    }

    /// The guard modules (index, bar?) every EAN-13 shares, with five quiet modules either side.
    private static let fixedModules: [(Int, Bool)] = {
        var list: [(Int, Bool)] = []
        for i in -5 ..< 0 { list.append((i, false)) }
        for (i, bar) in [true, false, true].enumerated() { list.append((i, bar)) }
        for (i, bar) in [false, true, false, true, false].enumerated() { list.append((45 + i, bar)) }
        for (i, bar) in [true, false, true].enumerated() { list.append((92 + i, bar)) }
        for i in 95 ..< 100 { list.append((i, false)) }
        return list
    }()

    // MARK: Sampling

    /// Mean darkness over `a ..< b` (pixels, fractional), or nil outside the profile.
    func mean(_ a: Double, _ b: Double) -> Double? {
        guard a >= 0, b <= Double(darkness.count), b > a else { return nil }
        return (cumulative(b) - cumulative(a)) / (b - a)
    }

    private func cumulative(_ x: Double) -> Double {
        let i = min(Int(x), darkness.count - 1)
        return prefix[i] + (x - Double(i)) * darkness[i]
    }

    /// Mean darkness of module `i` under `grid` (nil off the profile).
    func module(_ i: Int, _ grid: Grid) -> Double? {
        mean(grid.start + Double(i) * grid.module, grid.start + Double(i + 1) * grid.module)
    }

    /// Pearson correlation of the sampled modules with the expected bars.
    private static func correlation(_ pairs: [(Double, Bool)]) -> Double {
        guard pairs.count >= 4 else { return -1 }
        let n = Double(pairs.count)
        let mx = pairs.reduce(0) { $0 + $1.0 } / n
        let my = pairs.reduce(0) { $0 + ($1.1 ? 1 : 0) } / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (x, bar) in pairs {
            let y = (bar ? 1 : 0) - my
            sxy += (x - mx) * y; sxx += (x - mx) * (x - mx); syy += y * y
        }
        guard sxx > 0, syy > 0 else { return -1 }
        return sxy / (sxx * syy).squareRoot()
    }

    /// How well the guards and quiet zones alone fit `grid`.
    func guardFit(_ grid: Grid) -> Double {
        var pairs: [(Double, Bool)] = []
        pairs.reserveCapacity(Self.fixedModules.count)
        for (i, bar) in Self.fixedModules {
            guard let v = module(i, grid) else {
                // The quiet zone may run off the line; the guards may not.
                if (0..<95).contains(i) { return -1 }
                continue
            }
            pairs.append((v, bar))
        }
        return Self.correlation(pairs)
    }

    /// How well a given code's 95 modules fit `grid`.
    func fit(_ modules: [Bool], _ grid: Grid) -> Double {
        var pairs: [(Double, Bool)] = []
        for (i, bar) in modules.enumerated() {
            guard let v = module(i, grid) else { return -1 }
            pairs.append((v, bar))
        }
        return Self.correlation(pairs)
    }

    // MARK: Reading

    /// Reads the line: each digit its best pattern, on the best of the candidate grids.
    func read() -> Reading? {
        var winner: Reading?
        for grid in candidates {
            let refined = refine(grid) { self.freeRead($0).fit }
            let (digits, fit) = freeRead(refined)
            if fit > winner?.freeFit ?? -1 { winner = Reading(digits: digits, freeFit: fit, grid: refined) }
        }
        return winner
    }

    /// The best fit of a known code on the candidate grids.
    func bestFit(of code: String) -> Double {
        guard let bars = Self.modules(of: code) else { return -1 }
        return candidates.map { grid in fit(bars, refine(grid) { fit(bars, $0) }) }.max() ?? -1
    }

    /// The `keep` grids whose guards and quiet zones fit best, each the best of its neighbourhood.
    private func bestGrids(hint: ClosedRange<Double>, modules range: ClosedRange<Double>, keep: Int) -> [Grid] {
        var scored: [(Grid, Double)] = []
        var module = max(0.6, range.lowerBound)
        let length = hint.upperBound - hint.lowerBound
        while module <= range.upperBound {
            let code = 95 * module
            // The code covers the hint at least in part: it starts no later than the hint does
            // and ends no earlier than the hint's first half.
            var start = max(0, hint.lowerBound - code + length / 2)
            let last = min(hint.lowerBound + module * 2, Double(darkness.count) - code)
            while start <= last {
                let grid = Grid(start: start, module: module)
                scored.append((grid, guardFit(grid)))
                start += module / 3
            }
            module *= 1.02
        }
        scored.sort { $0.1 > $1.1 }
        var kept: [Grid] = []
        for (grid, _) in scored where kept.count < keep {
            let near = kept.contains { abs($0.start - grid.start) < 3 * grid.module && abs($0.module - grid.module) < 0.06 * grid.module }
            if !near { kept.append(grid) }
        }
        return kept
    }

    /// Hill-climbs `grid`'s start and module width on `score`.
    private func refine(_ grid: Grid, score: (Grid) -> Double) -> Grid {
        var best = grid, bestScore = score(grid)
        var step = (start: grid.module / 3, module: grid.module * 0.01)
        for _ in 0..<24 {
            var improved = false
            for (ds, dm) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                let g = Grid(start: best.start + ds * step.start, module: best.module + dm * step.module)
                let s = score(g)
                if s > bestScore { best = g; bestScore = s; improved = true }
            }
            if !improved {
                step = (step.start / 2, step.module / 2)
                if step.start < 0.05 { break }
            }
        }
        return best
    }

    /// Each digit read as its best pattern under `grid`; the digits when they form a valid code.
    func freeRead(_ grid: Grid) -> (digits: String?, fit: Double) {
        // Bars and spaces are told apart by the guards' own levels.
        var barLevel = 0.0, spaceLevel = 0.0, bars = 0.0, spaces = 0.0
        for (i, bar) in Self.fixedModules where (0..<95).contains(i) {
            guard let v = module(i, grid) else { return (nil, -1) }
            if bar { barLevel += v; bars += 1 } else { spaceLevel += v; spaces += 1 }
        }
        let threshold = (barLevel / bars + spaceLevel / spaces) / 2
        var chosen: [Bool] = [true, false, true]
        var digits: [Int] = [], parity: [Bool] = []
        for position in 0..<12 {
            let first = position < 6 ? 3 + 7 * position : 50 + 7 * (position - 6)
            var samples: [Double] = []
            for i in first ..< first + 7 {
                guard let v = module(i, grid) else { return (nil, -1) }
                samples.append(v - threshold)
            }
            func score(_ pattern: [Bool]) -> Double {
                zip(samples, pattern).reduce(0) { $0 + ($1.1 ? $1.0 : -$1.0) }
            }
            let sets: [(patterns: [[Bool]], isG: Bool)] = position < 6 ? [(Self.lPatterns, false), (Self.gPatterns, true)] : [(Self.rPatterns, false)]
            var best = (digit: 0, isG: false, score: -Double.infinity)
            for set in sets {
                for (digit, pattern) in set.patterns.enumerated() {
                    let s = score(pattern)
                    if s > best.score { best = (digit, set.isG, s) }
                }
            }
            digits.append(best.digit)
            if position < 6 { parity.append(best.isG) }
            chosen += (sets.first { $0.isG == best.isG }!.patterns)[best.digit]
            if position == 5 { chosen += [false, true, false, true, false] }
        }
        chosen += [true, false, true]
        let fit = self.fit(chosen, grid)
        guard let first = Self.parities.firstIndex(of: parity) else { return (nil, fit) }
        let code = ([first] + digits).map(String.init).joined()
        return (GTIN.isValid(code) ? code : nil, fit)
    }
}
