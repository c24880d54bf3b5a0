/// How alike two words are, for OCR output: edit distance where look-alike letters cost less.
enum WordSimilarity {
    /// 1 for equal words, down to 0; `1 - distance / longer length`. Substituting a look-alike
    /// (i/l, e/c, u/v, a/o, c/o, n/h, f/t) costs 0.4, any other edit 1.
    /// Words too different in length to reach `floor` are not compared (0).
    static func similarity(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], floor: Double = 0.5) -> Double {
        let la = a.count, lb = b.count
        if la == 0 || lb == 0 { return 0 }
        if a == b { return 1 }
        let longer = Double(max(la, lb))
        let allowed = (1 - floor) * longer
        if Double(abs(la - lb)) > allowed { return 0 }
        // Two rows of the Levenshtein table, on the stack for short words.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (lb + 1)) { buffer in
            var previous = UnsafeMutableBufferPointer(rebasing: buffer[0...lb])
            var current = UnsafeMutableBufferPointer(rebasing: buffer[(lb + 1)...])
            for j in 0...lb { previous[j] = Double(j) }
            for i in 1...la {
                current[0] = Double(i)
                var rowMin = current[0]
                let ca = a[i - 1]
                for j in 1...lb {
                    let cb = b[j - 1]
                    let substitution = ca == cb ? 0 : (lookAlike(ca, cb) ? 0.4 : 1)
                    let v = min(previous[j - 1] + substitution, previous[j] + 1, current[j - 1] + 1)
                    current[j] = v
                    rowMin = min(rowMin, v)
                }
                if rowMin > allowed { return 0 }
                swap(&previous, &current)
            }
            let distance = previous[lb]
            return max(0, 1 - distance / longer)
        }
    }

    @inline(__always)
    static func lookAlike(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        switch (a, b) {
        case ("i", "l"), ("l", "i"), ("e", "c"), ("c", "e"), ("u", "v"), ("v", "u"), ("a", "o"), ("o", "a"),
             ("c", "o"), ("o", "c"), ("n", "h"), ("h", "n"), ("f", "t"), ("t", "f"), ("i", "j"), ("j", "i"):
            true
        default:
            false
        }
    }

    /// How much a word pair counts as the same word, 0-1: nothing below `0.5` similarity; short
    /// words must be (nearly) exact, since a two-letter slip turns one short word into another.
    static func credit(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Double {
        let shorter = min(a.count, b.count)
        if shorter <= 2 { return a == b ? 1 : 0 }
        let floor = shorter == 3 ? 0.8 : 0.5
        let s = similarity(a, b, floor: floor)
        guard s >= floor else { return 0 }
        return s >= 1 ? 1 : max(0, (s - 0.5) / 0.5)
    }
}
