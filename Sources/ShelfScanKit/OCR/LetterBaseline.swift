import Foundation

/// Which way up a spine's letters stand, from where they line up.
///
/// In a line of mixed-case Latin text nearly every letter sits on the baseline (only g, j, p, q
/// and y drop below it), while the tops are split between the x-height (a, e, n, o...) and the
/// ascenders and capitals (b, d, h, l, T...). So the letters' edges on the baseline's side line
/// up far more tightly than those on the other side, whichever way the line is turned. A line in
/// capitals lines up on both sides and says nothing; so do runs of fewer than `runLetters`
/// letters.
///
/// Where it speaks, it chooses the direction a spine is read in first, lets a sure line read that
/// way spare the other way, and sets the direction of the spine's retries and of the passes
/// after matching (`RegionReader.read`, `DirectionVotes.usualTurns(of:)`); the photo's usual
/// direction stands elsewhere.
enum LetterBaseline {
    /// Letters a run needs to count.
    static let runLetters = 6
    /// Letters all counted runs need together.
    static let leastLetters = 10
    /// How much more of the letters must line up on one side than on the other (share of the
    /// letters, weighed by each run's letters).
    static let margin = 0.15

    /// The quarter turn (of `RegionReader.read`'s) that stands the letters in `boxes` upright,
    /// nil when they do not say. `boxes`: letters of the upright crop (`RegionReader.letterBoxes`);
    /// `standing`: a standing spine (text along the crop's height: the baseline is its left or
    /// right side) or a lying one (its top or bottom).
    static func upright(_ boxes: [BoundingBox], standing: Bool) -> Int? {
        // Across the line: x for a standing spine, y for a lying one.
        func low(_ b: BoundingBox) -> Int { standing ? b.x : b.y }
        func high(_ b: BoundingBox) -> Int { standing ? b.x + b.width : b.y + b.height }
        func size(_ b: BoundingBox) -> Double { Double(high(b) - low(b)) }
        func centre(_ b: BoundingBox) -> Double { Double(low(b) + high(b)) / 2 }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        func start(_ b: BoundingBox) -> Int { standing ? b.y : b.x }
        func end(_ b: BoundingBox) -> Int { standing ? b.y + b.height : b.x + b.width }
        // Letters gathered into runs along the text: each joins a recent run it follows closely
        // (a gap under a letter's height) at its level and size. Gathered by their level across
        // the text alone, a spine's title and author's name, both centred on the spine but of
        // different sizes, made one line with two baselines.
        var runs: [[BoundingBox]] = []
        for letter in boxes.sorted(by: { start($0) < start($1) }) {
            let joined = runs.indices.suffix(4).reversed().first { i in
                let run = runs[i]
                let height = median(run.map(size)), middle = median(run.map(centre))
                let gap = Double(start(letter) - (run.map(end).max() ?? 0))
                return gap <= height && abs(centre(letter) - middle) <= 0.4 * height
                    && size(letter) >= 0.5 * height && size(letter) <= 2 * height
            }
            if let i = joined { runs[i].append(letter) } else { runs.append([letter]) }
        }
        var letters = 0
        var lead = 0.0
        for run in runs where run.count >= runLetters {
            let tolerance = max(1.5, 0.12 * median(run.map(size)))
            // A slanted line (a leaning spine, a turned photo) lines up along its slant: the
            // letters' middles give it, and both edges are measured from it.
            let along = run.map { Double(start($0) + end($0)) / 2 }
            let slope = Self.slope(of: run.map(centre), along: along)
            let lows = run.indices.map { Double(low(run[$0])) - slope * along[$0] }
            let highs = run.indices.map { Double(high(run[$0])) - slope * along[$0] }
            let lowLine = median(lows), highLine = median(highs)
            let lowShare = Double(lows.filter { abs($0 - lowLine) <= tolerance }.count) / Double(run.count)
            let highShare = Double(highs.filter { abs($0 - highLine) <= tolerance }.count) / Double(run.count)
            letters += run.count
            lead += Double(run.count) * (highShare - lowShare)
        }
        guard letters >= leastLetters else { return nil }
        let share = lead / Double(letters)
        // The baseline on the high side (right, or bottom) stands upright turned a quarter
        // clockwise (standing) or not at all (lying); on the low side, the other way.
        if share > margin { return standing ? 1 : 0 }
        if share < -margin { return standing ? 3 : 2 }
        return nil
    }

    /// The least-squares slope of `values` over `along` (0 when `along` does not vary).
    static func slope(of values: [Double], along: [Double]) -> Double {
        let n = Double(values.count)
        let meanA = along.reduce(0, +) / n, meanV = values.reduce(0, +) / n
        var covariance = 0.0, variance = 0.0
        for (a, v) in zip(along, values) {
            covariance += (a - meanA) * (v - meanV)
            variance += (a - meanA) * (a - meanA)
        }
        return variance > 0 ? covariance / variance : 0
    }
}
