/// How alike two words are, for OCR output: edit distance where look-alike letters cost less.
enum WordSimilarity {
    /// 1 for equal words, down to 0; `1 - distance / longer length`. Substituting a look-alike
    /// (i/l, e/c, u/v, a/o, c/o, n/h, f/t, i/j) or reading one letter as two (rn/m, vv/w, cl/d)
    /// costs 0.4, any other edit 1.
    /// Words too different in length to reach `floor` are not compared (0).
    static func similarity(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], floor: Double = 0.5) -> Double {
        let la = a.count, lb = b.count
        if la == 0 || lb == 0 { return 0 }
        if a == b { return 1 }
        let longer = Double(max(la, lb))
        let allowed = (1 - floor) * longer
        if Double(abs(la - lb)) > allowed { return 0 }
        // Three rows of the Levenshtein table (the third for rn/m and vv/w, one letter read as two).
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * (lb + 1)) { buffer in
            var older = UnsafeMutableBufferPointer(rebasing: buffer[0...lb])
            var previous = UnsafeMutableBufferPointer(rebasing: buffer[(lb + 1)...(2 * lb + 1)])
            var current = UnsafeMutableBufferPointer(rebasing: buffer[(2 * lb + 2)...])
            for j in 0...lb { previous[j] = Double(j) }
            var previousMin = 0.0
            for i in 1...la {
                current[0] = Double(i)
                var rowMin = current[0]
                let ca = a[i - 1]
                for j in 1...lb {
                    let cb = b[j - 1]
                    let substitution = ca == cb ? 0 : (lookAlike(ca, cb) ? 0.4 : 1)
                    var v = min(previous[j - 1] + substitution, previous[j] + 1, current[j - 1] + 1)
                    if i >= 2, splitLetter(a[i - 2], ca, cb) { v = min(v, older[j - 1] + 0.4) }
                    if j >= 2, splitLetter(b[j - 2], cb, ca) { v = min(v, previous[j - 2] + 0.4) }
                    current[j] = v
                    rowMin = min(rowMin, v)
                }
                // No path through two rows at once can come back under the limit.
                if min(rowMin, previousMin) > allowed { return 0 }
                previousMin = rowMin
                let spare = older
                older = previous
                previous = current
                current = spare
            }
            let distance = previous[lb]
            return max(0, 1 - distance / longer)
        }
    }

    /// `x y` is how OCR reads the single letter `z` (rn for m, vv for w, cl for d).
    @inline(__always)
    static func splitLetter(_ x: Unicode.Scalar, _ y: Unicode.Scalar, _ z: Unicode.Scalar) -> Bool {
        (x == "r" && y == "n" && z == "m") || (x == "v" && y == "v" && z == "w") || (x == "c" && y == "l" && z == "d")
    }

    /// Letters OCR reads one for the other: i/l, e/c, u/v, a/o, c/o, n/h, f/t, i/j, either way
    /// round (`lookAlikes`). One switch on the first letter: a switch on the pair compared it
    /// with all sixteen in turn, for every unequal pair of letters the edit distance met (2% of
    /// a shelf photo's CPU, 2026-12-06).
    @inline(__always)
    static func lookAlike(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        switch a {
        case "i": b == "l" || b == "j"
        case "l", "j": b == "i"
        case "e": b == "c"
        case "c": b == "e" || b == "o"
        case "u": b == "v"
        case "v": b == "u"
        case "a": b == "o"
        case "o": b == "a" || b == "c"
        case "n": b == "h"
        case "h": b == "n"
        case "f": b == "t"
        case "t": b == "f"
        default: false
        }
    }

    /// The pairs `lookAlike` holds, each one way round.
    static let lookAlikes: [(Unicode.Scalar, Unicode.Scalar)] = [
        ("i", "l"), ("e", "c"), ("u", "v"), ("a", "o"), ("c", "o"), ("n", "h"), ("f", "t"), ("i", "j"),
    ]

    /// How much a word pair counts as the same word, 0-1: the similarity from 0.75 up, less below,
    /// nothing under 0.5; short
    /// words must be (nearly) exact, since a two-letter slip turns one short word into another.
    static func credit(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Double {
        let shorter = min(a.count, b.count)
        if shorter <= 2 { return a == b ? 1 : 0 }
        let floor = shorter == 3 ? 0.8 : 0.5
        let s = similarity(a, b, floor: floor)
        guard s >= floor else { return 0 }
        // One slip in a five-letter word (0.8) keeps 0.8; below 0.75, credit falls to 0 at 0.5.
        return s >= 0.75 ? s : max(0, (s - 0.5) / 0.25 * 0.75)
    }
}
