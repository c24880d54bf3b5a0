import Foundation

/// Text that reads like a title but matched no known book. Reported as such, never as a book.
public struct UnidentifiedText: Codable, Sendable, Equatable {
    public let text: String
    public let box: BoundingBox
    /// Mean OCR confidence of its lines, 0-100.
    public let ocrConfidence: Double
}

/// What the text stage found in one image.
struct TextFindings {
    var books: [BookEntity] = []
    var unidentified: [UnidentifiedText] = []
    var regionsMilliseconds = 0.0
    var ocrMilliseconds = 0.0
    var matchingMilliseconds = 0.0
    var regions: [TextRegion] = []
    var lines: [ReadLine] = []
}

/// image -> regions (spines, lying spines, a cover) -> lines read -> groups of lines matched to
/// books, one book per group and no book twice.
struct TextStage {
    let workers: OCRWorkers
    /// The title matcher, perhaps still being built while the spines are read (`PendingMatcher`).
    let matchers: PendingMatcher
    /// The built matcher; only used once `matchers.get()` has returned it (an empty one else).
    var matcher: BookMatcher { (try? matchers.get()) ?? Self.noBooks }
    static let noBooks = BookMatcher(books: [])
    let finder = SpineFinder()
    var reader = RegionReader()
    /// Read unnamed spines with letters of mixed sizes piece by piece (`RegionReader.readPieces`).
    var readPieces = TextStage.piecesReading
    /// Whether unnamed standing spines are read across (`RegionReader.readAcross`; tests turn it
    /// off to isolate another pass).
    var readAcross = TextStage.acrossReading
    /// Whether a photo read as a cover that named no book is read again as one block, locally
    /// thresholded (`coverRetry`; tests turn it off to show what it finds).
    var readCoverAgain = TextStage.coverRetry
    /// Whether a photo that named no book, read whole, is read in windows (`coverWindows`;
    /// tests turn it off to show what it finds).
    var readCoverWindows = TextStage.coverWindowReading
    /// Whether unnamed spines' lines along them are read cut out (`RegionReader.readAlongLines`,
    /// `along`; tests turn it off to isolate another pass).
    var readAlong = TextStage.along != "off"
    /// Whether unnamed spines are read along their main axis of hue (`RegionReader.readChroma`,
    /// `chroma`; tests turn it off to isolate another pass).
    var readByHue = TextStage.chroma != "off"
    /// Matches scoring below this are not books.
    let minimumScore: Double

    init(workers: OCRWorkers, matchers: PendingMatcher, minimumScore: Double) {
        self.workers = workers
        self.matchers = matchers
        self.minimumScore = minimumScore
    }

    init(workers: OCRWorkers, matcher: BookMatcher, minimumScore: Double) {
        self.init(workers: workers, matchers: PendingMatcher(matcher), minimumScore: minimumScore)
    }

    /// `spines`: the regions, and the time finding them took, when already found.
    func run(_ image: PixImage, mode: ScanMode, spines: (layout: SpineFinder.Layout, milliseconds: Double)? = nil) throws(ShelfScanError) -> TextFindings {
        var findings = TextFindings()
        var clock = ContinuousClock.now
        var layout: SpineFinder.Layout?
        if mode != .cover {
            if let spines { layout = spines.layout } else { layout = try finder.spines(in: image) }
        }
        findings.regionsMilliseconds = spines.map(\.milliseconds) ?? clock.millisecondsElapsed
        if Self.traceLayout, let layout {
            let r = layout.regions
            FileHandle.standardError.write(Data(("LAYOUT regions \(r.count) windows \(r.filter(\.window).count) lying \(r.filter { $0.layout == .lyingSpine }.count)"
                + " cover \(r.filter { $0.layout == .cover }.count) edges \(layout.standingEdges)/\(layout.lyingEdges) alternative \(layout.alternative.count)\n").utf8))
        }
        let whole = TextRegion(layout: .cover, box: BoundingBox(x: 0, y: 0, width: image.width, height: image.height),
                               lean: 0, typicalThickness: 0, row: 0, index: 0)
        /// The whole photo read as a cover and matched, its time counted.
        func readWhole() throws(ShelfScanError) -> (lines: [[ReadLine]], books: [BookEntity], unidentified: [UnidentifiedText]) {
            clock = .now
            let lines = try read([whole], in: image).kept
            findings.ocrMilliseconds += clock.millisecondsElapsed
            clock = .now
            _ = try matchers.get()
            let (books, unidentified) = match(lines: lines, regions: [whole], coverLike: true)
            findings.matchingMilliseconds += clock.millisecondsElapsed
            if Self.traceLines {
                let named = Set(books.flatMap { $0.evidence.map(\.box) })
                for l in lines[0] {
                    FileHandle.standardError.write(Data("COVER \(Int(l.confidence))\(named.contains(l.box) ? "*" : "") h\(Int(l.textHeight)) q\(l.quarterTurns) \(l.box.x),\(l.box.y) \(l.box.width)x\(l.box.height) \(l.text)\n".utf8))
                }
            }
            return (lines, books, unidentified)
        }
        // The whole photo's reading, when read already.
        var wholeRead: (lines: [[ReadLine]], books: [BookEntity], unidentified: [UnidentifiedText])?
        if mode == .auto, readCoverFirst, let layout, Self.coverLike(layout) {
            let read = try readWhole()
            if Self.coverAccounts(for: read.lines[0], books: read.books) {
                findings.books = read.books
                findings.unidentified = read.unidentified
                findings.regions = [whole]
                findings.lines = read.lines[0]
                return findings
            }
            wholeRead = read
        }
        if let layout, !layout.regions.isEmpty {
            try readSpines(layout.regions, in: image, into: &findings)
            // Almost nothing named: the photo may have been taken the wrong way (a small pile on
            // top of a standing row outvoting the row's spines). The other orientation's regions
            // are read too, and the reading that names more books is kept.
            if findings.books.count <= Self.fewBooks && !layout.alternative.isEmpty {
                var other = findings
                try readSpines(layout.alternative, in: image, into: &other)
                if other.books.count > findings.books.count { swap(&findings, &other) }
                // Both readings took their time, whichever is kept.
                findings.ocrMilliseconds = findings.ocrMilliseconds + other.ocrMilliseconds
                findings.matchingMilliseconds = findings.matchingMilliseconds + other.matchingMilliseconds
            }
        }
        // A cover, or what auto mode could not read as spines.
        if mode == .cover || (mode == .auto && findings.books.isEmpty) {
            var (lines, books, unidentified) = if let wholeRead { wholeRead } else { try readWhole() }
            // Nothing named: the cover may stand small in a bigger picture (held up, on a table),
            // where Tesseract's page analysis takes its title for a picture and one threshold
            // over the whole photo merges it with its ground (DUNE, dark brown on orange, beside
            // a light table: the orange fell dark with the letters). Read once more as one block
            // of text, each pixel against its own surroundings (`Thresholding.local`).
            if books.isEmpty, readCoverAgain {
                clock = .now
                let again = try readEach([whole]) { [reader] _, region, engine throws(ShelfScanError) in
                    try reader.readBlockLocally(region, in: image, engine: engine, tag: "-cover")
                }
                lines[0] = RegionReader.keepBest(lines[0] + again[0])
                findings.ocrMilliseconds += clock.millisecondsElapsed
                clock = .now
                (books, unidentified) = match(lines: lines, regions: [whole], coverLike: true)
                findings.matchingMilliseconds += clock.millisecondsElapsed
            }
            var regions = [whole]
            // Still nothing: a cover taking less of the photo, on a busy ground (held up before
            // a bookcase). Four windows of the photo read as covers, each as the whole photo was
            // and again as one locally thresholded block; the surest book of any names it.
            if books.isEmpty, readCoverWindows {
                clock = .now
                let windows = Self.coverWindows(width: image.width, height: image.height)
                let read = try readEach(windows) { [reader] _, region, engine throws(ShelfScanError) in
                    try reader.read(region, in: image, engine: engine, first: true)
                        + reader.readBlockLocally(region, in: image, engine: engine, tag: "-window")
                }.map { RegionReader.keepBest($0) }
                findings.ocrMilliseconds += clock.millisecondsElapsed
                clock = .now
                var best: (books: [BookEntity], unidentified: [UnidentifiedText], window: Int)?
                for w in windows.indices {
                    let (b, u) = match(lines: [read[w]], regions: [windows[w]], coverLike: true)
                    if let top = b.first, top.confidence > (best?.books.first?.confidence ?? 0) { best = (b, u, w) }
                }
                findings.matchingMilliseconds += clock.millisecondsElapsed
                if let best {
                    books = best.books
                    unidentified = best.unidentified
                    regions = [windows[best.window]]
                    lines = [read[best.window]]
                }
            }
            if !books.isEmpty {
                findings.books = books
                findings.unidentified = unidentified
                findings.regions = regions
                findings.lines = lines.flatMap { $0 }
            } else if findings.books.isEmpty {
                // Neither reading named a book: keep what both read (the spines' unidentified
                // titles and their regions stay in the result and its picture).
                findings.unidentified += unidentified.filter { u in
                    !findings.unidentified.contains { Self.letters($0.text) == Self.letters(u.text) }
                }
                findings.regions.append(whole)
                findings.lines += lines.flatMap { $0 }
            }
        }
        return findings
    }

    /// Whether a photo laid out like a front cover is read whole first (`coverLike`; tests turn
    /// it off to show what reading it as spines finds).
    var readCoverFirst = TextStage.coverFirst

    /// `SHELFSCAN_COVER_FIRST=off`: a photo laid out like a front cover is read as spines first,
    /// as any other (for measuring).
    static let coverFirst = ProcessInfo.processInfo.environment["SHELFSCAN_COVER_FIRST"] != "off"

    /// Whether the spine finder's regions look like a front cover's lines of print: every one
    /// lies, and most (half or more) are windows, cut from spaces where no edge of a book was
    /// found (`TextRegion.window`). A stack's books are parted by their edges; a cover's title,
    /// author and publisher lie on one ground.
    static func coverLike(_ layout: SpineFinder.Layout) -> Bool {
        let regions = layout.regions
        return !regions.isEmpty && regions.allSatisfy { $0.layout == .lyingSpine }
            && regions.filter(\.window).count * 2 >= regions.count
    }

    /// Whether the whole photo read as a cover is that cover's and nothing else: it names one
    /// book, surely (confidence 0.9 or more), and every sure line (confidence 80 or more) with a
    /// word of three letters is that book's title, subtitle or authors read again
    /// (`FoundWords.explain`). A stack read whole names one of its books too, but its other
    /// books' titles are left over.
    static func coverAccounts(for lines: [ReadLine], books: [BookEntity]) -> Bool {
        guard books.count == 1, let book = books.first, book.confidence >= 0.9 else { return false }
        let words = FoundWords(book)
        return lines.allSatisfy { line in
            line.confidence < 80 || !MatchText.words(line.text).contains { $0.count >= 3 }
                || words.explain(line.text, titleWord: false)
        }
    }

    /// `SHELFSCAN_COVER_WINDOWS=off`: a photo that named no book, read whole, is not read in
    /// windows (for measuring).
    static let coverWindowReading = ProcessInfo.processInfo.environment["SHELFSCAN_COVER_WINDOWS"] != "off"

    /// Four windows of the photo, each seven tenths of its width and height, at its corners: any
    /// cover up to two fifths of the photo either way lies whole in one of them (a box of width
    /// b at x fits the left ones when x + b <= 0.7, the right ones when x >= 0.3).
    static func coverWindows(width: Int, height: Int) -> [TextRegion] {
        let w = (width * 7 + 9) / 10, h = (height * 7 + 9) / 10
        let origins = [(0, 0), (width - w, 0), (0, height - h), (width - w, height - h)]
        return origins.enumerated().map { i, o in
            TextRegion(layout: .cover, box: BoundingBox(x: o.0, y: o.1, width: w, height: h), lean: 0, typicalThickness: 0, row: 0, index: i + 1)
        }
    }

    /// `SHELFSCAN_COVER_RETRY=off`: a photo read as a cover that named no book is not read again
    /// (for measuring).
    static let coverRetry = ProcessInfo.processInfo.environment["SHELFSCAN_COVER_RETRY"] != "off"

    /// A retry pass over the spines that named no book (`readSpines`).
    struct Pass {
        let name: String
        /// Its lines replace the ones read over the same ink when read better (`RegionReader.keepBest`).
        var keepingBest = false
        /// Whether it runs, asked when its turn comes.
        let runs: () -> Bool
        /// The regions it reads.
        let picks: () -> [Int]
        /// Its reading of a region (given the lines read on it so far), with what it takes from
        /// the photo as it stands; and, for each region, those inputs (`PassAhead.Reading.key`).
        let prepare: () -> (read: PassAhead.Read, inputs: (Int) -> [Int])
    }

    /// The readings ahead (`PassAhead`) a pass takes instead of reading: of regions it reads
    /// (`picked`), read on the lines they hold now (`lines`) with the inputs the pass takes
    /// from the photo now (`inputs`). Any other was read on a photo the pass does not see.
    static func standing(_ early: [Int: PassAhead.Reading], picked: [Int], lines: [[ReadLine]],
                         inputs: (Int) -> [Int]) -> [Int: [ReadLine]] {
        var taken: [Int: [ReadLine]] = [:]
        for r in picked {
            if let e = early[r], e.before == lines[r], e.key == inputs(r) { taken[r] = e.lines }
        }
        return taken
    }

    /// `SHELFSCAN_PASS_AHEAD=off`: each pass waits for the one before it (`PassAhead`; for measuring).
    static let passAhead = ProcessInfo.processInfo.environment["SHELFSCAN_PASS_AHEAD"] != "off"

    /// `SHELFSCAN_TRACE_LAYOUT=1`: each photo's regions counted on stderr (how many are windows cut
    /// from spaces with no edge found, how many lie, how many are whole covers), for measuring.
    static let traceLayout = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_LAYOUT"] == "1"

    /// A spine reading naming this many books or fewer may have taken the photo the wrong way.
    static let fewBooks = 1

    /// Reads `regions` as spines and matches what they say.
    func readSpines(_ regions: [TextRegion], in image: PixImage, into result: inout TextFindings) throws(ShelfScanError) {
        // A local copy: the passes' closures below hold it.
        var findings = result
        defer { result = findings }
        let memo = MatchMemo()
        var clock = ContinuousClock.now
        // The passes below prepare the spines they read again and again: their crops are kept
        // from the first reading on until the passes end (`PreparedCrops`); once the first
        // reading is matched, only those of the regions it left unnamed (`keepCrops`).
        if Self.firstCrops { reader.crops.keepFromNow() }
        defer { reader.crops.clear() }
        let everyReading = try read(regions, in: image)
        reader.crops.keepFromNow()
        // Rows of the losing orientation that held a book's words: their regions are spines like the others.
        var regions = regions
        for r in regions.indices where everyReading.hedges.holds(row: regions[r].row) { regions[r].hedge = false }
        var lines = everyReading.kept
        if Self.traceLines {
            for r in regions.indices {
                FileHandle.standardError.write(Data("FIRST r\(regions[r].row)-\(regions[r].index): \(Self.traced(lines[r]))\n".utf8))
            }
        }
        findings.ocrMilliseconds = clock.millisecondsElapsed
        clock = .now
        // The matcher, built meanwhile; its time waited for is matching's.
        _ = try matchers.get()
        (findings.books, findings.unidentified) = match(lines: lines, regions: regions, coverLike: false, memo: memo)
        // Where a spine's ink was read both ways and the way kept names no book, the other way
        // may: upside-down capitals read surely ("ap sepog" for "Bodas de"), or two spines of
        // opposite ways in one region. The lines read the other way replace the ones they
        // clashed with when they name, alone, a book the photo has not named yet.
        if Self.otherWayReading {
            let named = Set(findings.books.flatMap { $0.evidence.map(\.box) })
            let found = Set(findings.books.flatMap { b in [b.isbn13, b.title].compactMap { $0 } })
            var changed = false
            for r in regions.indices {
                if let other = Self.otherWay(lines[r], all: everyReading.all[r], named: named, found: found,
                                             matcher: matcher, minimumScore: minimumScore) {
                    lines[r] = other
                    changed = true
                }
            }
            if changed { (findings.books, findings.unidentified) = match(lines: lines, regions: regions, coverLike: false, memo: memo) }
        }
        findings.matchingMilliseconds = clock.millisecondsElapsed
        /// `picked` regions read once more by `body` (given a region and what it read so far):
        /// what it reads is added, and everything matched again when anything was.
        /// `known`: what regions read ahead (`PassAhead`), taken instead of reading them;
        /// `later`: regions still being read ahead, whose readings that stand `arrived` gives
        /// once done (the others are read then); `passAhead`: told what the pass reads and when
        /// its last region is handed out.
        func readAgain(_ pass: String, _ picked: [Int], keepingBest: Bool = false, with pool: OCRWorkers? = nil,
                       known: [Int: [ReadLine]] = [:], later: [Int] = [], arrived: () -> [Int: [ReadLine]] = { [:] },
                       passAhead: PassAhead? = nil,
                       _ body: @escaping @Sendable (TextRegion, [ReadLine], TesseractEngine) throws(ShelfScanError) -> [ReadLine])
            throws(ShelfScanError)
        {
            // Once the budget is spent, a pass reads nothing new (`ReadBudget`).
            guard !picked.isEmpty, reader.budget?.isSpent != true else { return }
            if RegionReader.traceReads { FileHandle.standardError.write(Data("PASS \(pass) \(picked.count) regions, \(known.count) read ahead, \(later.count) under way @\(Int(RegionReader.traceStart.millisecondsElapsed))\n".utf8)) }
            clock = .now
            let waiting = Set(later)
            let toRead = picked.filter { known[$0] == nil && !waiting.contains($0) }
            for (r, l) in known { passAhead?.note(r, l) }
            if toRead.isEmpty { passAhead?.openUp() }
            func readNow(_ some: [Int]) throws(ShelfScanError) -> [[ReadLine]] {
                let before = some.map { lines[$0] }
                return try readEach(some.map { regions[$0] }, with: pool, onRead: { i, l in passAhead?.note(some[i], l) },
                                    onDrained: { passAhead?.openUp() }) { i, region, engine throws(ShelfScanError) in
                    try body(region, before[i], engine)
                }
            }
            var readings = known.merging(zip(toRead, try readNow(toRead))) { a, _ in a }
            // The spines still being read ahead when the pass began: taken as the others, or read now.
            if !later.isEmpty {
                let arrived = arrived()
                for (r, l) in arrived {
                    readings[r] = l
                    passAhead?.note(r, l)
                }
                let again = later.filter { arrived[$0] == nil }
                for (r, l) in zip(again, try readNow(again)) { readings[r] = l }
            }
            var added = 0
            for r in picked {
                let l = readings[r] ?? []
                lines[r] = keepingBest ? RegionReader.keepBest(lines[r] + l) : lines[r] + l
                added += l.count
            }
            findings.ocrMilliseconds += clock.millisecondsElapsed
            if RegionReader.traceReads { FileHandle.standardError.write(Data("PASS \(pass) done: \(Int(clock.millisecondsElapsed)) ms, \(added) lines @\(Int(RegionReader.traceStart.millisecondsElapsed))\n".utf8)) }
            guard added > 0 else { return }
            clock = .now
            let before = memo.counts
            (findings.books, findings.unidentified) = match(lines: lines, regions: regions, coverLike: false, memo: memo)
            findings.matchingMilliseconds += clock.millisecondsElapsed
            if RegionReader.traceReads {
                let after = memo.counts
                FileHandle.standardError.write(Data("BOOKS \(pass) \(findings.books.count) @\(Int(RegionReader.traceStart.millisecondsElapsed)) runs \(after.asked - before.asked) new \(after.computed - before.computed): \(findings.books.map { $0.title ?? "?" }.joined(separator: " | "))\n".utf8))
            }
        }
        /// Which way the photo's sure lines (confidence 80 or more) read so far, and the way each
        /// region's letters stand where they said (`LetterBaseline`).
        func sureDirections() -> DirectionVotes {
            let votes = everyReading.directions.guessesOnly()
            for r in regions.indices { for l in lines[r] where l.confidence >= 80 { votes.add(l.quarterTurns) } }
            return votes
        }
        /// The regions none of whose lines a book was read from, lines holding no word of the
        /// book's title excepted (`namingLines`, `holdsTitleWord`); hedges that held no word are
        /// not retried (`TextRegion.hedge`), nor regions showing no letter (`LetterlessRegions`,
        /// unless `letterless`).
        func unnamed(_ layouts: Set<TextRegion.Layout>, letterless: Bool = false) -> [Int] {
            let named = Set(findings.books.flatMap { book in
                book.evidence.filter { line in
                    switch Self.namingLines {
                    case "any": true
                    case "title": Self.holdsTitleWord(line.text, title: book.title ?? "", subtitle: book.subtitle)
                    default: !Self.authorsOnly(line.text, of: book.authors)
                    }
                }.map(\.box)
            })
            let parts = Self.splitParts(books: findings.books, lines: lines, regions: regions, naming: named)
                .union(Self.windowsOverNamed(books: findings.books, lines: lines, regions: regions, naming: named))
            return regions.indices.filter { r in
                layouts.contains(regions[r].layout) && !regions[r].hedge && (letterless || !everyReading.letterless.contains(regions[r]))
                    && !lines[r].contains { named.contains($0.box) } && !parts.contains(r)
            }
        }
        // The first reading's crops of regions it named are let go: the passes read the others.
        if Self.firstCrops { reader.keepCrops(of: unnamed(Set(regions.map(\.layout)), letterless: true).map { regions[$0] }) }
        /// The unnamed spines with a line read on them (every unnamed spine when `all`).
        func unnamedWithLetters(all: Bool) -> [Int] {
            unnamed([.spine, .lyingSpine]).filter { r in all || lines[r].contains { regions[r].holds($0.box) && (Self.alongCascade || !$0.cutOut) } }
        }
        /// Which way the photo reads for `r` (`DirectionVotes.usualTurns`), as a pass's input.
        func usual(_ votes: DirectionVotes) -> (Int) -> [Int] { { r in votes.usualTurns(of: regions[r]) } }
        let noInputs: (Int) -> [Int] = { _ in [] }
        let shelf = { findings.books.count >= Self.shelfBooks }
        let passes: [Pass] = [
            // Spines that named no book though a line on them was read surely: their band read
            // alone, both ways (the sure line may be upside-down capitals); where both ways read
            // the same ink, the surer reading stands. Real shelves, deadline off: 309 of 615 found,
            // 331 returned, against 307 and 328 reading the band of every spine that had a line
            // dropped at first; the 12 MP shelf 3.1-3.2 s to 2.7-2.8 s cold, the same 52 books.
            // Only on photos where some spine named a book (as the rescaled readings, below): a
            // front cover read as spines names none, and is read as a cover next.
            Pass(name: "band", keepingBest: true, runs: { Self.bandAgain && !findings.books.isEmpty }, picks: { unnamed([.spine, .lyingSpine]) }) { [reader] in
                ({ region, before, engine throws(ShelfScanError) in try reader.readBand(region, in: image, engine: engine, besides: before) }, noInputs)
            },
            // A standing spine that named no book may carry its title across it (hardbacks,
            // big-name paperbacks: "STEPHEN KING" along, "DOCTOR / SLEEP" across): those wide
            // enough to hold a word across are read upright too, and everything is matched again.
            Pass(name: "across", runs: { readAcross }, picks: { unnamed([.spine]) }) { [reader] in
                ({ region, _, engine throws(ShelfScanError) in try reader.readAcross(region, in: image, engine: engine) }, noInputs)
            },
            // Spines that still name no book may carry their title in a paler ink or colour than
            // the author's name read surely beside it, or be worn pale whole, lost to Tesseract's one
            // threshold: their lines of letters are found at a low Sauvola k and each read cut out,
            // in the sure line's direction or the photo's usual one (`RegionReader.readAlongLines`).
            // The lines cut out do not count as letters read on a spine for the passes below
            // (`alongCascade`).
            Pass(name: "along", runs: { readAlong && shelf() },
                 picks: { Self.along == "lettered" ? unnamedWithLetters(all: false) : unnamed([.spine, .lyingSpine]) }) { [reader] in
                let votes = Self.along == "sure" ? nil : sureDirections()
                return ({ region, before, engine throws(ShelfScanError) in
                    try reader.readAlongLines(region, in: image, engine: engine, besides: before, turns: votes?.usualTurns(of: region))
                }, votes.map(usual) ?? noInputs)
            },
            // Spines that still name no book may carry a title in letters far smaller than the
            // author's name beside it: those are read again for their small letters alone.
            // This and the passes below (rescaled, leaned) run only on photos where spines named
            // `shelfBooks` books or more: a front cover read as a pile of lying lines names one
            // from its title, and reading its tagline and publisher's lines again cost the cover
            // benchmark 270 ms of its 700 for nothing. Real shelves, deadline off: 383 / 404 / 21
            // found / returned / wrong against 382 / 403 / 21 (Heroes and Villains on suzanne1,
            // found in one run of two of the same code); SampleImages 258 both ways.
            Pass(name: "small", runs: { Self.smallLetters && shelf() }, picks: { unnamed([.spine, .lyingSpine]) }) { [reader] in
                ({ region, before, engine throws(ShelfScanError) in try reader.readSmallLetters(region, in: image, engine: engine, besides: before) }, noInputs)
            },
            // Spines still naming no book whose letters come in pieces of different sizes along
            // them (an author's name in big capitals, the title small beside it): each piece read
            // alone at its own size, in the line read surely's direction or the photo's usual one.
            // (Reading a front cover's lines piece by piece cost the cover benchmark 130 ms, 740 to
            // 870, for nothing, before `shelfBooks` held back this pass.)
            // The same measure, on a spine with no sure line whose letters are not of mixed sizes
            // along it, picks the longest line of letters of each piece, cut out tightly and read
            // alone, every way (`RegionReader.TightReading`). Real shelves, deadline off: 419 / 439
            // / 20 found / returned / wrong -> 423 / 444 / 21, CPU the same; the 12 MP shelf about
            // +50 ms (one spine read both ways for nothing).
            Pass(name: "pieces", runs: { readPieces && shelf() }, picks: { unnamed([.spine, .lyingSpine]) }) { [reader] in
                let votes = sureDirections()
                let named = findings.books.flatMap { $0.evidence.map(\.box) }
                let namedKey = named.flatMap { [$0.x, $0.y, $0.width, $0.height] }
                return ({ region, before, engine throws(ShelfScanError) in
                    // Pieces lie along the spine: a sure line read across it (upright) says nothing
                    // of their direction.
                    let sure = reader.sureLines(before, on: region).filter { region.quarterTurns.contains($0.quarterTurns) }
                        .max(by: { $0.confidence < $1.confidence })
                    let tight = Self.tight && (sure == nil || Self.tightEverywhere)
                        ? RegionReader.TightReading(turns: sure.map { [$0.quarterTurns] } ?? region.quarterTurns, avoiding: named) : nil
                    return try reader.readPieces(region, in: image, engine: engine, turns: sure.map { [$0.quarterTurns] } ?? votes.usualTurns(of: region),
                                                 tight: tight)
                }, { r in votes.usualTurns(of: regions[r]) + namedKey })
            },
            // Spines still naming no book, though a line on them was read surely: the title may be
            // far larger or smaller than the thickness suggested. Read again half as large again,
            // then, when that reading names no book alone or beside the sure line, two thirds as
            // large, in the sure line's direction; the photo is matched once afterwards.
            Pass(name: "rescaled", runs: { !Self.rescale.isEmpty && shelf() }, picks: { unnamed([.spine, .lyingSpine]) }) { [reader, matcher, minimumScore] in
                ({ region, before, engine throws(ShelfScanError) in
                    let sure = reader.sureLines(before, on: region)
                    var added: [ReadLine] = []
                    for scale in Self.rescale {
                        let read = try reader.readRescaled(region, in: image, engine: engine, factor: scale, besides: before)
                        added += read
                        if Self.names(read, besides: sure, matcher: matcher, minimumScore: minimumScore) { break }
                    }
                    return added
                }, noInputs)
            },
            // Spines still naming no book whose letters, as first scaled, are small: read again
            // scaled so that they stand about 30 pixels tall (`RegionReader.readLetterSized`), both
            // ways unless a line was read surely. What it reads is kept only where it names a book,
            // alone or beside the spine's sure lines: the lines of junk it reads elsewhere split the
            // runs of lines matched (eight lines between gardening's "IN PARTICULAR" and "ANGELA
            // KING" lost *England in Particular*). Real shelves 448 / 463 / 15 -> 452 / 468 / 16;
            // the 12 MP shelf about +0.6 s (README, Accuracy and Performance, twenty-sixth session).
            Pass(name: "sized", runs: { Self.letterSized != "off" && shelf() }, picks: { unnamed([.spine, .lyingSpine]) }) { [reader, matcher, minimumScore] in
                let votes = sureDirections()
                return ({ region, before, engine throws(ShelfScanError) in
                    let read = try reader.readLetterSized(region, in: image, engine: engine, turns: Self.letterSized == "usual" ? votes.usualTurns(of: region) : region.quarterTurns, besides: before)
                    guard Self.sizedKeepNamed else { return read }
                    return Self.names(read, besides: reader.sureLines(before, on: region), matcher: matcher, minimumScore: minimumScore) ? read : []
                }, Self.letterSized == "usual" ? usual(votes) : noInputs)
            },
            // Spines still naming no book, with letters read on them: the edges' lean is known to
            // within a degree (the search's step is two), and a degree off puts the ends of a thin
            // spine's text onto its neighbours. Read again turned a degree either way, the band
            // alone, the photo's usual direction (`RegionReader.readLeaned`). Real shelves, deadline
            // off: 310 to 325 of 615 found, 331 to 350 returned, 21 to 25 wrongly (-1 alone 315,
            // +1 alone 316); the 12 MP shelf +0.1 s; on every unnamed spine, letters seen or not,
            // 322 and 348 (measured before the usual-direction choice and the half-degree turn), +0.35 s.
            Pass(name: "leaned", runs: { !Self.leaned.isEmpty && shelf() }, picks: { unnamed([.spine, .lyingSpine]) }) { [reader] in
                let votes = sureDirections()
                return ({ region, before, engine throws(ShelfScanError) in
                    guard before.contains(where: { region.holds($0.box) && (Self.alongCascade || !$0.cutOut) }) else { return [] }
                    var added: [ReadLine] = []
                    for delta in Self.leaned {
                        added += try reader.readLeaned(region, in: image, engine: engine, delta: delta, turns: votes.usualTurns(of: region))
                    }
                    return added
                }, usual(votes))
            },
            // Spines still naming no book, with letters read on them: read as sparse text, in the
            // photo's usual direction, the fast model first, the second model after its own reading
            // (`RegionReader.readSparse`: a picture beside the title spoils a block reading, where
            // Tesseract takes the picture for lines). Real shelves, deadline off: 341 to 348 of 615
            // found, 362 to 371 returned (21 to 23 wrongly) with the fast model, 351 and 374 with
            // both, CPU +5% each (eval runs 851, 895, 942 s); every unnamed spine, letters read or
            // not, 354 / 378 / 24, but 19 sparse readings (385 ms of CPU) instead of 4 on the 12 MP
            // shelf. Photos where spines named two books or more only, as the second model's pass.
            Pass(name: "sparse", runs: { Self.sparse != "off" && shelf() }, picks: { unnamedWithLetters(all: Self.sparse == "all") }) { [reader] in
                let votes = sureDirections()
                return ({ region, _, engine throws(ShelfScanError) in
                    try reader.readSparse(region, in: image, engine: engine, turns: votes.usualTurns(of: region))
                }, usual(votes))
            },
            // Spines still naming no book, with letters read on them: their crop turned gray by each
            // pixel's darkest channel instead of luminance, read once in the photo's usual direction
            // (`PixImage.darkestChannel`): a title printed in orange or yellow on a cream spine is
            // about as light as the spine by luminance, and dark against it in the blue channel (Mary
            // Renault's Penguins: "Mary Renault" in black read, "Fire From Heaven" in orange not).
            // Real shelves, deadline off: 395 / 418 / 23 found / returned / wrong -> 402 / 424 / 22,
            // CPU +1% (the 12 MP shelf +40 ms). Measured and left out: both directions 405 / 427 / 22
            // and every unnamed spine 405 / 428 / 23, each +4% CPU (the gains mostly books that come
            // and go between runs); the whole first reading with its retries, 407 / 432 / 25, +14%.
            Pass(name: "colour", keepingBest: true, runs: { Self.colour != "off" && shelf() }, picks: { unnamedWithLetters(all: Self.colour == "all") }) { [reader] in
                var darkest = reader
                darkest.darkestChannel = true
                let votes = sureDirections()
                return ({ [darkest] region, _, engine throws(ShelfScanError) in
                    try darkest.readOnce(region, in: image, engine: engine, turns: votes.usualTurns(of: region), tag: "-colour")
                }, usual(votes))
            },
            // Spines still naming no book: their crop turned gray along its main axis of hue, read
            // once in the photo's usual direction (`RegionReader.readChroma`): a title set apart
            // from its spine by colour alone (red letters on dark green) is one gray by luminance.
            Pass(name: "chroma", keepingBest: true, runs: { readByHue && shelf() }, picks: {
                switch Self.chroma {
                case "every": unnamed([.spine, .lyingSpine], letterless: true)
                case "read": unnamedWithLetters(all: false)
                default: unnamed([.spine, .lyingSpine])
                }
            }) { [reader] in
                let votes = sureDirections()
                return ({ region, _, engine throws(ShelfScanError) in
                    try reader.readChroma(region, in: image, engine: engine, turns: Self.chromaBothWays ? region.quarterTurns : votes.usualTurns(of: region))
                }, Self.chromaBothWays ? noInputs : usual(votes))
            },
            // Spines still naming no book, with letters read on them: their crop read once more as
            // each pixel's distance from its ground's gray, in the photo's usual direction
            // (`RegionReader.readDistance`): a title lighter than its spine beside a name darker than
            // it read in one go (orange Penguins: "UNCLE FRED IN" in white beside "P.G. WODEHOUSE"
            // in black, lost to Tesseract's one threshold).
            Pass(name: "distance", keepingBest: true, runs: { Self.distance != "off" && shelf() }, picks: { unnamedWithLetters(all: Self.distance == "all") }) { [reader] in
                let votes = sureDirections()
                return ({ region, _, engine throws(ShelfScanError) in
                    try reader.readDistance(region, in: image, engine: engine, turns: votes.usualTurns(of: region))
                }, usual(votes))
            },
            // Spines still naming no book, with letters read on them: their crop widened by 0.35 of
            // its thickness on each side, read once in the photo's usual direction
            // (`RegionReader.readWidened`): an edge found through a spine's label cuts its title
            // lengthwise. With the distance reading above, real shelves 440 / 460 / 20 found /
            // returned / not labelled -> 442 / 462 / 20, eval CPU +10%; the 12 MP shelf +0.3 s (see
            // README, Accuracy, twenty-third session).
            Pass(name: "wide", keepingBest: true, runs: { Self.widened != "off" && shelf() },
                 picks: { Self.widened == "all" ? unnamed([.spine, .lyingSpine]) : unnamedWithLetters(all: false) }) { [reader] in
                let votes = sureDirections()
                return ({ region, _, engine throws(ShelfScanError) in
                    try reader.readWidened(region, in: image, engine: engine, turns: votes.usualTurns(of: region))
                }, usual(votes))
            },
        ]
        // Each pass in turn, the one after it read ahead meanwhile on the cores it leaves idle
        // (`PassAhead`; not under a reading budget, which the readings ahead would spend).
        let passAhead = Self.passAhead && reader.budget == nil ? PassAhead(regions: regions, pool: workers) : nil
        defer { passAhead?.stop() }
        for (k, pass) in passes.enumerated() {
            let (early, pending) = passAhead?.claim(k) ?? ([:], [])
            guard pass.runs() else { continue }
            let picked = pass.picks()
            guard !picked.isEmpty, reader.budget?.isSpent != true else { continue }
            let (read, inputs) = pass.prepare()
            // The readings ahead that stand; the ones under way are waited for after the others.
            let known = Self.standing(early, picked: picked, lines: lines, inputs: inputs)
            let reads = Set(picked)
            let later = pending.filter { reads.contains($0) && known[$0] == nil }
            if let passAhead, let next = passes.indices.dropFirst(k + 1).first(where: { passes[$0].runs() }) {
                let (nextRead, nextInputs) = passes[next].prepare()
                let tasks = passes[next].picks().map { r in
                    PassAhead.Spine(region: r, key: nextInputs(r), lines: lines[r], waits: reads.contains(r))
                }
                passAhead.plan(pass: next, read: nextRead, tasks: tasks, keepingBest: pass.keepingBest)
            }
            let linesNow = lines
            try readAgain(pass.name, picked, keepingBest: pass.keepingBest, known: known, later: later, arrived: {
                Self.standing(passAhead?.wait(for: k) ?? [:], picked: later, lines: linesNow, inputs: inputs)
            }, passAhead: passAhead, read)
        }
        passAhead?.stop()
        /// The second model's sparse reading (see the fast model's, `sparse` above).
        func readSparse(with pool: OCRWorkers) throws(ShelfScanError) {
            guard Self.sparse != "off", findings.books.count >= Self.shelfBooks else { return }
            let votes = sureDirections()
            try readAgain("second-sparse", unnamedWithLetters(all: Self.sparse == "all"), with: pool) { [reader] region, _, engine throws(ShelfScanError) in
                try reader.readSparse(region, in: image, engine: engine, turns: votes.usualTurns(of: region))
            }
        }
        // Spines still naming no book, with letters read on them: read again, every reading
        // above, by the second model (Tesseract's main English LSTM: larger and slower than the
        // fast one, right on other spines). Real shelves, deadline off: 329 to 341 of 615 found,
        // 349 to 362 returned (20 to 21 wrongly), CPU +40%; the 12 MP shelf +11% (52 to 53 books).
        // Its first reading alone found 333 for +17% CPU; every unnamed spine, letters read or
        // not, 347 / 369 / 22 for +64%. Only on photos where spines named two books or more: one
        // named is more likely a cover read as spines (read as a cover next), and the pass cost
        // the cover benchmark a third of its time for nothing.
        if Self.secondModel != "off", findings.books.count >= Self.shelfBooks, let second = workers.second {
            let votes = sureDirections()
            var secondReader = reader
            if Self.secondRetriesOff.contains("nosharp") { secondReader.sharpenedRetry = false }
            if Self.secondRetriesOff.contains("nofine") { secondReader.fineLocalRetry = false }
            if Self.secondRetriesOff.contains("nogray") { secondReader.grayPaddingRetry = false }
            try readAgain("second", unnamedWithLetters(all: Self.secondModel == "all"), keepingBest: true, with: second) { [secondReader] region, _, engine throws(ShelfScanError) in
                try secondReader.read(region, in: image, engine: engine, votes: votes, mayBeBlank: Self.secondModel == "all",
                                      turns: Self.secondBothWays ? nil : votes.usualTurns(of: region))
            }
            try readSparse(with: second)
        }
        if Self.nameOnly, findings.books.count >= Self.shelfBooks { addOwnedWorks(lines: lines, regions: regions, unnamed: unnamed([.spine, .lyingSpine]), into: &findings) }
        if Self.neighbourFloor < minimumScore, findings.books.count >= Self.shelfBooks {
            addNeighbourWorks(lines: lines, regions: regions, unnamed: unnamed([.spine, .lyingSpine]), into: &findings)
        }
        findings.regions = regions
        findings.lines = lines.flatMap { $0 }
        if Self.traceLines {
            let named = Set(findings.books.flatMap { $0.evidence.map(\.box) })
            for r in regions.indices {
                FileHandle.standardError.write(Data("LINES r\(regions[r].row)-\(regions[r].index) \(regions[r].layout)\(regions[r].window ? "-window" : "") \(regions[r].box.x),\(regions[r].box.y) \(regions[r].box.width)x\(regions[r].box.height): \(Self.traced(lines[r], named: named))\n".utf8))
            }
        }
    }

    /// Spines that named no book, though their author's full name was read on them surely: the
    /// one work the reader owns by that author that the photo has not named yet
    /// (`BookMatcher.ownedWorks`: the only one they own, or the last of several), at
    /// `nameOnlyScore`. Not when the photo named a book by that author the reader does not own:
    /// the shelf holds works of theirs besides the reader's, and the spine may be one of those.
    /// Only on photos where spines named `shelfBooks` books (a front cover read as lying lines
    /// names its book from the title and reads the author's name apart: the reader's other book
    /// by that author is not on it), never from a name line over a named book's own. Each spine's
    /// lines with the name are its evidence. Author-only reads were the second
    /// commonest miss on the real shelves (75 of 229 books missed read their author's name and no
    /// title word): classics whose spines print the author big ("OSCAR WILDE"), titles in small
    /// or fancy letters.
    func addOwnedWorks(lines: [[ReadLine]], regions: [TextRegion], unnamed: [Int], into findings: inout TextFindings) {
        func names(_ authors: [String]) -> Set<[String]> { Set(authors.map { MatchText.authorWords($0).sorted() }) }
        var found = findings.books
        for r in unnamed {
            let onSpine = lines[r].filter { regions[r].holds($0.box) }
            guard !onSpine.isEmpty, let (works, name) = matcher.ownedWorks(for: Self.regionText(onSpine)), let first = works.first else { continue }
            let author = works.dropFirst().reduce(names(first.authors)) { $0.intersection(names($1.authors)) }
            guard !found.contains(where: { !$0.inLibrary && !author.isDisjoint(with: names($0.authors)) }) else { continue }
            let left = works.filter { w in
                !found.contains { f in (w.id != nil && f.libraryId == w.id) || (w.isbn13 != nil && f.isbn13 == w.isbn13) }
            }
            guard left.count == 1 else { continue }
            let nameWords = Set(MatchText.words(name))
            let evidence = onSpine.filter { !nameWords.isDisjoint(with: MatchText.words($0.text)) }
            // The name read again by an overlapping window, over a named book's own name line.
            guard !found.contains(where: { f in
                f.evidence.contains { e in
                    !nameWords.isDisjoint(with: MatchText.words(e.text)) && evidence.contains { RegionReader.overlap($0.box, e.box) > 0.5 }
                }
            }) else { continue }
            let match = BookMatch(book: left[0], score: Self.nameOnlyScore, titleScore: 0, authorScore: 1, matchedText: name)
            found.append(Self.entity(match, lines: evidence.isEmpty ? onSpine : evidence, region: regions[r]))
        }
        guard found.count > findings.books.count else { return }
        let added = found[findings.books.count...]
        findings.unidentified.removeAll { u in added.contains { b in b.evidence.contains { RegionReader.overlap($0.box, u.box) > 0 } } }
        findings.books = found.sorted { $0.confidence > $1.confidence }
    }

    /// Spines that named no book, whose best remaining match (at least `neighbourFloor`, on two
    /// words of three letters or more, one of them a title word) is by the author of a book the
    /// spine beside them named: shelves keep an author's books together, so a worn or half-read
    /// spine beside a named book by the same author is likelier that author's than a match of
    /// that score elsewhere. Reported at its own match score (a lower confidence than the
    /// floor's); one book per spine, none named twice in the photo.
    func addNeighbourWorks(lines: [[ReadLine]], regions: [TextRegion], unnamed: [Int], into findings: inout TextFindings) {
        func names(_ authors: [String]) -> Set<[String]> { Set(authors.prefix(3).map { MatchText.authorWords($0).sorted() }.filter { $0.count >= 2 }) }
        func across(_ r: Int) -> ClosedRange<Double> {
            let b = regions[r].box
            return regions[r].layout == .spine ? Double(b.x)...Double(b.x + b.width) : Double(b.y)...Double(b.y + b.height)
        }
        func overlap(_ a: ClosedRange<Double>, _ b: ClosedRange<Double>) -> Double {
            max(0, min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound)) / max(1, min(a.upperBound - a.lowerBound, b.upperBound - b.lowerBound))
        }
        // The regions each found book was read from.
        var namedRegions: [(region: Int, authors: Set<[String]>)] = []
        for book in findings.books {
            let boxes = Set(book.evidence.map(\.box))
            for r in regions.indices where lines[r].contains(where: { boxes.contains($0.box) }) {
                namedRegions.append((r, names(book.authors)))
            }
        }
        let found = Set(findings.books.flatMap { b in
            var book = Book(id: b.libraryId, title: b.title ?? "", subtitle: b.subtitle, authors: b.authors)
            book.isbn13 = b.isbn13
            return MatchAssignment.identity(book)
        })
        var picked: [Int] = []
        var candidates: [[BookMatch]] = []
        // Per picked spine, the lines each candidate was matched from (by identity key).
        var windows: [[String: [ReadLine]]] = []
        for r in unnamed {
            let span = across(r)
            // Another window over a named spine's ink is that spine, not its neighbour.
            let sameRow = namedRegions.filter { regions[$0.region].row == regions[r].row && regions[$0.region].layout == regions[r].layout }
            guard !sameRow.contains(where: { overlap(across($0.region), span) > 0.5 }) else { continue }
            // Beside it: a gap of at most half a spine between the two.
            let gap = regions[r].typicalThickness / 2
            let neighbours = sameRow.filter { n in
                let other = across(n.region)
                return other.lowerBound <= span.upperBound + gap && other.upperBound >= span.lowerBound - gap
            }.reduce(Set<[String]>()) { $0.union($1.authors) }
            guard !neighbours.isEmpty else { continue }
            let onSpine = lines[r].filter { regions[r].holds($0.box) }
                .sorted { Self.readsBefore($0, $1, standing: regions[r].layout == .spine) }
            guard !onSpine.isEmpty else { continue }
            var best: [String: BookMatch] = [:]
            var lineOf: [String: [ReadLine]] = [:]
            for first in onSpine.indices {
                for last in first..<min(onSpine.count, first + 4) {
                    let window = Array(onSpine[first...last])
                    for m in matcher.matches(for: Self.regionText(window), limit: 10) where m.score >= Self.neighbourFloor {
                        guard m.matchedText.split(separator: " ").filter({ $0.count >= 3 }).count >= 2, Self.readsTitleWord(m),
                              !names(m.book.authors).isDisjoint(with: neighbours),
                              Set(MatchAssignment.identity(m.book)).isDisjoint(with: found) else { continue }
                        let key = MatchAssignment.identity(m.book)[0]
                        if (best[key]?.score ?? 0) < m.score { best[key] = m; lineOf[key] = window }
                    }
                }
            }
            guard !best.isEmpty else { continue }
            let ranked = best.sorted { $0.value.score != $1.value.score ? $0.value.score > $1.value.score : $0.key < $1.key }
            picked.append(r)
            candidates.append(ranked.map(\.value))
            windows.append(lineOf)
        }
        guard !picked.isEmpty else { return }
        let assigned = MatchAssignment.assign(candidates, minScore: Self.neighbourFloor)
        var added: [BookEntity] = []
        for (i, match) in assigned.enumerated() {
            guard let match, let window = windows[i][MatchAssignment.identity(match.book)[0]] else { continue }
            let r = picked[i]
            if RegionReader.traceReads {
                FileHandle.standardError.write(Data("NEIGHBOUR r\(regions[r].row)-\(regions[r].index) \(match.book.title) score \(match.score) title \(match.titleScore) matched \"\(match.matchedText)\"\n".utf8))
            }
            added.append(Self.entity(match, lines: window, region: regions[r]))
        }
        guard !added.isEmpty else { return }
        findings.unidentified.removeAll { u in added.contains { b in b.evidence.contains { RegionReader.overlap($0.box, u.box) > 0 } } }
        findings.books = (findings.books + added).sorted { $0.confidence > $1.confidence }
    }

    /// Whether the words `match` matched hold a word of its title read nearly whole (at most one
    /// slip in four letters, `WordSimilarity`): a title word of four letters or more that says
    /// something (not common), not one of its authors' names. "welle" is *... the Wells*, and
    /// "sapphi" *The Sapphire Widow*; "christie" read beside "Agatha" is no *Christmas*.
    static func readsTitleWord(_ match: BookMatch) -> Bool {
        let nameWords = Set(match.book.authors.flatMap(MatchText.authorWords))
        let title = MatchText.rememberedTitle(match.book.title, subtitle: match.book.subtitle).core
            .filter { $0.count >= 4 && !MatchText.commonWords.contains($0) && !nameWords.contains($0) }
            .map { Array($0.unicodeScalars) }
        let read = match.matchedText.split(separator: " ").map(String.init)
            .filter { w in !nameWords.contains { WordSimilarity.similarity(Array($0.unicodeScalars), Array(w.unicodeScalars)) >= 0.75 } }
            .map { Array($0.unicodeScalars) }
        return title.contains { t in read.contains { WordSimilarity.similarity(t, $0, floor: 0.75) >= 0.75 } }
    }

    /// The lowest match score a spine beside a book by the same author names its book at
    /// (`addNeighbourWorks`); `SHELFSCAN_NEIGHBOUR_FLOOR` (the reported floor or more: off).
    static let neighbourFloor = Double(ProcessInfo.processInfo.environment["SHELFSCAN_NEIGHBOUR_FLOOR"] ?? "") ?? 0.45

    /// The match score of a book named by its author's name alone (`addOwnedWorks`).
    static let nameOnlyScore = 0.6

    /// `SHELFSCAN_NAME_ONLY=off`: a spine naming only its author names no book.
    static let nameOnly = ProcessInfo.processInfo.environment["SHELFSCAN_NAME_ONLY"] != "off"

    /// Whether line `a` comes before `b` in a region: on a standing spine, the lines along it
    /// first, across the row (left to right, whichever way the spine reads: a line stays beside
    /// the neighbouring region's), then the lines across it, top to bottom, as a person reads a
    /// title stacked across a hardback's spine ("ALICE / IN / WONDER / LAND"). On a lying spine,
    /// top to bottom.
    /// Measured against taking the lines along a spine in their reading order too (rightmost
    /// first when it reads top to bottom), with a word broken over two lines joined both ways
    /// round: real shelves 386 / 407 / 21 found / returned / wrong here, 385 / 408 / 23 so (junk
    /// joined into *Hawaii* and *Sabotaje*); in reading order, joined one way only, 385 / 412 / 27
    /// (runs over two neighbouring spines joined lines that are not side by side).
    static func readsBefore(_ a: ReadLine, _ b: ReadLine, standing: Bool) -> Bool {
        let y = { (l: ReadLine) in Double(l.box.y) + Double(l.box.height) / 2 }
        guard standing else { return y(a) < y(b) }
        let x = { (l: ReadLine) in Double(l.box.x) + Double(l.box.width) / 2 }
        func across(_ l: ReadLine) -> Bool { l.quarterTurns % 2 == 0 }
        if across(a) != across(b) { return across(b) }
        return across(a) ? y(a) < y(b) : x(a) < x(b)
    }

    /// `SHELFSCAN_COLOUR=off` leaves unnamed spines unread by their darkest channel, `all` reads
    /// every unnamed spine so, letters read on it or not (for measuring).
    static let colour = ProcessInfo.processInfo.environment["SHELFSCAN_COLOUR"] ?? "read"
    /// `SHELFSCAN_CHROMA=off|read|every`: no reading by hue; only on unnamed spines with letters
    /// read on them; also on regions showing no letter (`LetterlessRegions`). By default every
    /// other unnamed spine.
    static let chroma = ProcessInfo.processInfo.environment["SHELFSCAN_CHROMA"] ?? "all"
    /// `SHELFSCAN_CHROMA_TURNS=both`: the reading by hue both ways, not the photo's usual way only.
    static let chromaBothWays = ProcessInfo.processInfo.environment["SHELFSCAN_CHROMA_TURNS"] == "both"

    /// `SHELFSCAN_TRACE_LINES=1`: every spine's lines after the last reading, on stderr (`*`: a
    /// book was named from it), to see what was read where a book was missed; and the lines of
    /// the whole photo read as a cover (`COVER`: confidence, text height, quarter turns, box).
    static let traceLines = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_LINES"] != nil

    /// A region's lines for `traceLines`: confidence and text, `*` after the confidence of those
    /// a book was named from.
    static func traced(_ lines: [ReadLine], named: Set<BoundingBox> = []) -> String {
        lines.map { "\(Int($0.confidence))\(named.contains($0.box) ? "*" : "") \($0.text)" }.joined(separator: " | ")
    }

    /// `SHELFSCAN_WIDE=off` leaves unnamed spines unread widened, `all` reads every unnamed spine
    /// so, letters read on it or not (for measuring).
    static let widened = ProcessInfo.processInfo.environment["SHELFSCAN_WIDE"] ?? "read"

    /// `SHELFSCAN_SIZED=usual` reads unnamed spines with small letters again at their letters'
    /// size in the photo's usual direction only, `off` not at all (`RegionReader.readLetterSized`;
    /// for measuring: see README, Accuracy, twenty-fifth and twenty-sixth sessions).
    static let letterSized = ProcessInfo.processInfo.environment["SHELFSCAN_SIZED"] ?? "read"
    /// `SHELFSCAN_SIZED_KEEP=all` keeps every line the letter-sized reading reads, not only
    /// lines naming a book (for measuring).
    static let sizedKeepNamed = ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_KEEP"] != "all"

    /// `SHELFSCAN_DISTANCE=off` leaves unnamed spines unread as distances from their ground's
    /// gray, `all` reads every unnamed spine so, letters read on it or not (for measuring).
    static let distance = ProcessInfo.processInfo.environment["SHELFSCAN_DISTANCE"] ?? "read"

    /// `SHELFSCAN_SPARSE=off` leaves unnamed spines unread as sparse text, `all` reads every
    /// unnamed spine, letters read on it or not (for measuring).
    static let sparse = ProcessInfo.processInfo.environment["SHELFSCAN_SPARSE"] ?? "read"

    /// `SHELFSCAN_SECOND_MODEL=off` leaves unnamed spines unread by the second model, `all` reads
    /// every unnamed spine, letters read on it or not (for measuring).
    static let secondModel = ProcessInfo.processInfo.environment["SHELFSCAN_SECOND_MODEL"] ?? "read"
    /// `SHELFSCAN_SECOND_TURNS=both`: the second model reads each spine both ways, as before the
    /// forty-first session, instead of the way its letters stand or the photo's usual one.
    static let secondBothWays = ProcessInfo.processInfo.environment["SHELFSCAN_SECOND_TURNS"] == "both"
    /// `SHELFSCAN_SECOND_RETRIES=nosharp,nofine,nogray`: the second model's reading without its
    /// sharpened, narrow-window or gray-padded retries (for measuring: without the first two,
    /// real shelves 460 / 476 instead of 463 / 479, eval CPU -8%, thirty-third session).
    static let secondRetriesOff = ProcessInfo.processInfo.environment["SHELFSCAN_SECOND_RETRIES"] ?? ""
    /// Which unnamed spines have their lines of letters along them read cut out
    /// (`RegionReader.readAlongLines`): `all` (the default), in a sure line's direction or the
    /// photo's usual one; `sure`, only beside a sure line; `lettered`, beside a sure line or in
    /// the usual direction where a line was read on the spine at all; `off` (`SHELFSCAN_ALONG`,
    /// for measuring).
    static let along = ProcessInfo.processInfo.environment["SHELFSCAN_ALONG"] ?? "all"
    /// `SHELFSCAN_ALONG_CASCADE=on`: lines cut out along a spine count as letters read on it for
    /// the passes after (the leaned, sparse, colour and second model's readings; for measuring).
    static let alongCascade = ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_CASCADE"] == "on"
    /// `SHELFSCAN_TIGHT=off` leaves unnamed spines' lines of letters unread cut out tightly
    /// (`RegionReader.TightReading`).
    static let tight = ProcessInfo.processInfo.environment["SHELFSCAN_TIGHT"] != "off"
    /// `SHELFSCAN_TIGHT=all`: lines of letters cut out on spines with a sure line too, in its
    /// direction (for measuring).
    static let tightEverywhere = ProcessInfo.processInfo.environment["SHELFSCAN_TIGHT"] == "all"

    /// The degrees unnamed spines are turned by beyond their lean and read again
    /// (`RegionReader.readLeaned`); `SHELFSCAN_LEANED=off` for none, or a list ("-1,1").
    static let leaned: [Double] = ProcessInfo.processInfo.environment["SHELFSCAN_LEANED"].map { setting in
        setting == "off" ? [] : setting.split(separator: ",").compactMap { Double($0) }
    } ?? [-1, 1]

    /// The scales spines naming no book beside a sure line are read again at, in turn
    /// (`RegionReader.readRescaled`); `SHELFSCAN_RESCALE=off` for none, or a list ("1.5,0.67").
    static let rescale: [Double] = {
        let setting = ProcessInfo.processInfo.environment["SHELFSCAN_RESCALE"]
        if setting == "off" { return [] }
        return setting.map { $0.split(separator: ",").compactMap { Double($0) } } ?? [1.5, 0.67]
    }()

    /// Unnamed spines' bands read again after matching (`RegionReader.readBand`), unless
    /// `SHELFSCAN_SPOILT=any` reads them as before, in `read` (for measuring).
    static let bandAgain = !RegionReader.anySpoilt

    /// Books the spines must have named for the retry passes after the band and across
    /// readings (small letters, pieces, rescaled, leaned, sparse, second model) to run: one
    /// named is more likely a front cover read as a pile of lying lines (read as a cover next
    /// when it names none). `SHELFSCAN_SHELF_BOOKS` overrides it (for measuring).
    static let shelfBooks = Int(ProcessInfo.processInfo.environment["SHELFSCAN_SHELF_BOOKS"] ?? "2") ?? 2

    /// `SHELFSCAN_SMALL=off` leaves small letters beside big ones unread again (for measuring).
    static let smallLetters = ProcessInfo.processInfo.environment["SHELFSCAN_SMALL"] != "off"

    /// `SHELFSCAN_PIECES=off` leaves spines with letters of mixed sizes unread piece by piece
    /// (`RegionReader.readPieces`, for measuring).
    static let piecesReading = ProcessInfo.processInfo.environment["SHELFSCAN_PIECES"] != "off"

    /// Whether the lines of a run that name `book` were read in ways one spine does not print
    /// it: its title's words in lines of two directions (along and across the spine, or both
    /// ways along it), or its title and its authors' names in opposite directions. A spine
    /// prints its title one way; its author's name may stand across it beside a title along
    /// it (hardbacks: "STEPHEN" across, "FIRESTARTER" along), but not upside down from it.
    /// Such a run joins pieces of neighbouring spines, or junk read the wrong way up: "x it INI
    /// N" read bottom to top beside "STEPHEN" and "KING" read top to bottom named *It* (0.95),
    /// "THE GIRL W" along and "house" across *The House Girl*, "Brother" along and "BIG;"
    /// across *Big Brother* (real shelves at 85% scale). Only lines holding a word of the
    /// title (`holdsTitleWord`) or of an author's name (three letters or more) count
    /// (`SHELFSCAN_ONE_DIRECTION=off` to compare).
    static func readTwoWays<Lines: Collection<ReadLine>>(_ book: Book, lines: Lines) -> Bool {
        let names = Set(book.authors.flatMap(MatchText.authorWords).filter { $0.count >= 3 })
        var titleTurns = Set<Int>(), nameTurns = Set<Int>()
        for line in lines {
            if holdsTitleWord(line.text, title: book.title, subtitle: book.subtitle) { titleTurns.insert(line.quarterTurns % 4) }
            else if MatchText.words(line.text).contains(where: names.contains) { nameTurns.insert(line.quarterTurns % 4) }
        }
        guard titleTurns.count <= 1 else { return true }
        let all = titleTurns.union(nameTurns)
        return all.contains { all.contains(($0 + 2) % 4) }
    }
    static let oneDirection = ProcessInfo.processInfo.environment["SHELFSCAN_ONE_DIRECTION"] != "off"

    /// `SHELFSCAN_ACROSS_WORD=alone`: one word read across a standing spine names a book alone
    /// too (for measuring; see `match`).
    static let acrossWordAlone = ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_WORD"] == "alone"
    /// `SHELFSCAN_ALONG_WORD=alone`: one word of a line cut out along a spine names a book alone
    /// (for measuring).
    static let alongWordAlone = ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_WORD"] == "alone"
    /// `SHELFSCAN_ACROSS=off` leaves titles across standing spines unread (for measuring).
    static let acrossReading = ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS"] != "off"

    /// Reads every region, both cores busy (one engine each).
    /// `kept`: per region, its lines, one reading of each ink (`RegionReader.keepBest`); `all`:
    /// every line read, both ways.
    /// `hedges`: which rows of hedges (`TextRegion.hedge`, the photo's losing orientation) read
    /// a book's word surely (`RegionReader.confirms`); those rows' hedges read only once before
    /// that were then read again in full, as spines of the photo's own orientation.
    /// `directions`: the photo's votes, with the way each region's letters stand.
    func read(_ regions: [TextRegion], in image: PixImage) throws(ShelfScanError)
        -> (kept: [[ReadLine]], all: [[ReadLine]], hedges: HedgeWatch, directions: DirectionVotes, letterless: LetterlessRegions)
    {
        let votes = DirectionVotes()
        let letterless = LetterlessRegions()
        // The losing orientation is read once: on most photos it is text and stripes seen
        // crosswise (the lines of standing spines' titles as a "pile" of books a few pixels
        // thick), where every retry reads nothing. Once a row of it reads a word surely, that
        // row holds books (a pile on a standing row) and is read like the rest; the other rows
        // stay hedges (`liz14`'s close-up spines: a word across one spine held four bands of
        // junk, 52 regions and 12 s of CPU through every pass, for that one book).
        let hedges = HedgeWatch()
        // Once the last region is handed out, one core idles until the others are read: the
        // second model's engines load on it (`OCRWorkers.preload`), for the passes after. Not
        // for a front cover alone (that model reads spines only): its one region is handed out
        // at once, and the core loads the matcher meanwhile (with 25k books, the cover took
        // 0.28-0.31 s instead of 0.24-0.25 s).
        let spines = regions.contains { $0.layout != .cover }
        let second = Self.secondModel != "off" && spines ? workers.second : nil
        var all = try readEach(regions, onDrained: { second?.preload() }) { _, region, engine throws(ShelfScanError) in
            try reader.read(region, in: image, engine: engine, votes: votes, all: true, first: true, hedges: hedges, letterless: letterless)
        }
        if hedges.held {
            let again = regions.indices.filter { hedges.wasReadOnce(regions[$0]) && hedges.holds(row: regions[$0].row) }
            let reread = try readEach(again.map { r in
                var full = regions[r]
                full.hedge = false
                return full
            }) { _, region, engine throws(ShelfScanError) in
                try reader.read(region, in: image, engine: engine, votes: votes, all: true, first: true, letterless: letterless)
            }
            for (r, lines) in zip(again, reread) { all[r] = lines }
        }
        // Where a spine's ink was read both ways, the photo's usual way (of its sure lines,
        // standing and lying apart) wins unless the other was read clearly better.
        let usual = Set([[1, 3], [0, 2]].compactMap { votes.preferred(among: $0) })
        return (all.map { RegionReader.keepBest($0, usual: Self.usualBonus ? usual : []) }, all, hedges, votes, letterless)
    }

    /// A region's lines with the ones read the other way over the same ink instead, when those
    /// name alone a book not in `found` (ISBNs and titles); nil otherwise. `kept`: the region's
    /// lines, `all`: every line read on it both ways, `named`: the boxes of lines books were read
    /// from (those and the lines they beat stay).
    static func otherWay(_ kept: [ReadLine], all: [ReadLine], named: Set<BoundingBox>, found: Set<String>,
                         matcher: BookMatcher, minimumScore: Double) -> [ReadLine]? {
        func same(_ a: ReadLine, _ b: ReadLine) -> Bool { a.quarterTurns == b.quarterTurns && a.box == b.box && a.text == b.text }
        let dropped = all.filter { d in
            !kept.contains { same($0, d) } && !kept.contains { k in
                named.contains(k.box) && k.quarterTurns != d.quarterTurns && RegionReader.overlap(k.box, d.box) > 0.5
            }
        }
        guard !dropped.isEmpty else { return nil }
        let other = RegionReader.keepBest(kept + dropped, usual: Set(dropped.map(\.quarterTurns)), bonus: 1000)
        let gained = other.filter { l in dropped.contains { same($0, l) } }
        guard !gained.isEmpty, let m = matcher.matches(for: regionText(gained)).first, m.score >= minimumScore,
              !found.contains(m.book.isbn13 ?? m.book.title) else { return nil }
        return other
    }

    /// `SHELFSCAN_OTHER_WAY=off`: a spine's ink read both ways keeps its first choice of way.
    static let otherWayReading = ProcessInfo.processInfo.environment["SHELFSCAN_OTHER_WAY"] != "off"

    /// `SHELFSCAN_FIRST_CROPS=off`: the first reading's crops are not kept for the passes (made
    /// again by the first pass that reads the region, as before the fifty-second session).
    static let firstCrops = ProcessInfo.processInfo.environment["SHELFSCAN_FIRST_CROPS"] != "off"

    /// `SHELFSCAN_USUAL=off`: lines read both ways over the same ink are chosen by confidence alone.
    static let usualBonus = ProcessInfo.processInfo.environment["SHELFSCAN_USUAL"] != "off"

    /// `body` on every region (with its place in `regions`), both cores busy (one engine each);
    /// the first error is thrown. `onRead`: told each region's lines as they are read;
    /// `onDrained`: told once the last region has been handed to a worker.
    func readEach(_ regions: [TextRegion], with pool: OCRWorkers? = nil,
                  onRead: (@Sendable (Int, [ReadLine]) -> Void)? = nil, onDrained: (@Sendable () -> Void)? = nil,
                  _ body: @escaping @Sendable (Int, TextRegion, TesseractEngine) throws(ShelfScanError) -> [ReadLine]) throws(ShelfScanError) -> [[ReadLine]] {
        let results = ResultSlots<Result<[ReadLine], ShelfScanError>>(count: regions.count)
        let queue = IndexQueue(count: regions.count)
        let pool = pool ?? workers
        DispatchQueue.concurrentPerform(iterations: min(regions.count, pool.size)) { _ in
            while let (i, last) = queue.next() {
                if last { onDrained?() }
                let outcome = Result<[ReadLine], ShelfScanError> { () throws(ShelfScanError) -> [ReadLine] in
                    try pool.withEngine { engine throws(ShelfScanError) in try body(i, regions[i], engine) }
                }
                if case .success(let lines) = outcome { onRead?(i, lines) }
                results.set(i, outcome)
            }
        }
        var lines: [[ReadLine]] = []
        for slot in results.values {
            switch slot {
            case .success(let l)?: lines.append(l)
            case .failure(let e)?: throw e
            case nil: lines.append([])
            }
        }
        return lines
    }

    // MARK: Grouping and matching

    /// A run of consecutive lines in one row, matched as one book.
    struct Group {
        var first: Int
        var last: Int
        var matches: [BookMatch]
        /// Whether the run spans two regions (a spine split by a false edge, or two spines).
        var crossing = false
        var best: Double { matches.first?.score ?? 0 }
    }

    /// Regions in a row are taken across it, each region's lines in the order of `readsBefore`;
    /// runs of up to four lines within one region or two
    /// neighbouring ones (a spine split by a false edge) are candidate books. The runs kept are
    /// the set that explains the most text with the best matches (weighted interval scheduling),
    /// so a title line and its author line become one book, not two.
    /// `memo`: matches of line runs already matched for this photo (a photo is matched again
    /// after each pass that read more, and most of its runs are unchanged).
    func match(lines perRegion: [[ReadLine]], regions: [TextRegion], coverLike: Bool,
               memo: MatchMemo? = nil) -> ([BookEntity], [UnidentifiedText]) {
        var chosen: [(group: Group, lines: [ReadLine], regions: [BoundingBox])] = []
        let rows = Dictionary(grouping: regions.indices, by: { regions[$0].row })
        for rowKey in rows.keys.sorted() {
            let indices = rows[rowKey]!.sorted { regions[$0].index < regions[$1].index }
            var ordered: [(line: ReadLine, region: Int, position: Int)] = []
            for (position, r) in indices.enumerated() {
                let horizontal = regions[r].layout == .spine
                // Across the row, then the lines read across the spine top to bottom.
                let sorted = perRegion[r].sorted { Self.readsBefore($0, $1, standing: horizontal) }
                ordered += sorted.map { ($0, r, position) }
            }
            guard !ordered.isEmpty else { continue }
            var groups: [Group] = []
            if coverLike {
                // A cover is one book: all its lines together, and the biggest lines alone.
                let all = ordered.map(\.line)
                var texts = [all]
                let big = all.sorted { $0.textHeight > $1.textHeight }.prefix(3)
                if all.count > 3 { texts.append(Array(big)) }
                var best: [BookMatch] = []
                for t in texts {
                    let m = matcher.matches(for: Self.regionText(t))
                    if (m.first?.score ?? 0) > (best.first?.score ?? 0) { best = m }
                }
                groups = [Group(first: 0, last: ordered.count - 1, matches: best)]
            } else {
                // Within one region, or across one edge that may have been a false one; never
                // the same ink twice (two overlapping regions read one word: "DAVID" read as a
                // title word and again as the author's name made "No, David!" of Baldacci's spine).
                let letters = ordered.map { Self.letters($0.line.text) }
                func rereads(_ i: Int, _ j: Int) -> Bool {
                    ordered[i].region != ordered[j].region && letters[i] == letters[j]
                        && RegionReader.overlap(ordered[i].line.box, ordered[j].line.box) > 0.5
                }
                let spans: [(first: Int, last: Int)] = ordered.indices.flatMap { first in
                    (first..<min(ordered.count, first + 4))
                        .prefix { last in
                            ordered[last].position - ordered[first].position <= 1 && !(first..<last).contains { rereads($0, last) }
                        }
                        .map { (first, $0) }
                }
                // One word read across a standing spine, alone, is a piece of its print cut out
                // (the "SECRET" of "THE SECRET / HISTORY", "Poet" of "The / Poetry / Book"), which
                // names one-word titles too easily: lines read across a spine alone only name a
                // book whose match rests on two words of three letters or more (two title words,
                // or a title word and an author's); beside a line read along the spine (the
                // author's name) they are matched as any lines are.
                // The same for any run holding a line of print cut out along a spine alone
                // (`ReadLine.cutOut`): "PANTHER" (a publisher's name) beside a sure "Ci" named
                // *The Panther*.
                func across(_ span: (first: Int, last: Int)) -> Bool {
                    let lines = ordered[span.first...span.last]
                    return (!Self.acrossWordAlone && lines.allSatisfy { $0.line.quarterTurns == 0 && regions[$0.region].layout == .spine })
                        || (!Self.alongWordAlone && lines.contains { $0.line.cutOut })
                }
                // Both cores: a full shelf row is a few hundred spans. A run's matches, and what
                // the rules above and `readTwoWays` leave of them, hang only on its lines' words
                // and ways (and whether they were cut out, on a standing spine): each pass
                // matches the photo again, and most runs are the same as the pass before
                // (`MatchMemo`).
                let results = ResultSlots<[BookMatch]>(count: spans.count)
                let lines = ordered.map(\.line)
                let acrossRuns = spans.map(across)
                let shapes = ordered.map { o in "\(o.line.quarterTurns)\(o.line.cutOut ? "c" : "")\(regions[o.region].layout == .spine ? "s" : "")" }
                DispatchQueue.concurrentPerform(iterations: spans.count) { i in
                    let span = spans[i]
                    let run = lines[span.first...span.last]
                    let text = Self.regionText(Array(run))
                    let kept = { () -> [BookMatch] in
                        var m = memo?.matches(for: text) { matcher.matches(for: text) } ?? matcher.matches(for: text)
                        if acrossRuns[i] { m = m.filter { $0.matchedText.split(separator: " ").filter { $0.count >= 3 }.count >= 2 } }
                        if Self.oneDirection { m = m.filter { !Self.readTwoWays($0.book, lines: run) } }
                        return m
                    }
                    guard let memo else { return results.set(i, kept()) }
                    results.set(i, memo.kept(for: text, shape: Array(shapes[span.first...span.last]), kept))
                }
                for (span, m) in zip(spans, results.values) {
                    guard let m else { continue }
                    if let top = m.first, top.score >= minimumScore {
                        groups.append(Group(first: span.first, last: span.last, matches: m,
                                            crossing: ordered[span.first].region != ordered[span.last].region))
                    }
                }
            }
            if SpineFinder.trace {
                for (i, o) in ordered.enumerated() {
                    FileHandle.standardError.write(Data("  row \(rowKey) line \(i) region \(regions[o.region].index) q\(o.line.quarterTurns) \(Int(o.line.confidence)) \"\(o.line.text)\"\n".utf8))
                }
                for g in groups {
                    FileHandle.standardError.write(Data("    group \(g.first)-\(g.last) \(g.matches.prefix(2).map { "\($0.book.title) \(String(format: "%.2f", $0.score))" })\n".utf8))
                }
            }
            for g in Self.schedule(groups, count: ordered.count, threshold: minimumScore) {
                let run = ordered[g.first...g.last]
                chosen.append((g, run.map(\.line), run.map { regions[$0.region].box }))
            }
        }
        // One book per group, never the same book twice in a photo.
        var rereadRuns = Set<Int>()
        var assigned = MatchAssignment.assign(chosen.map(\.group.matches), minScore: minimumScore)
        // A run whose first choice went to a run over the same ink is that book read twice
        // (overlapping windows, a retry), not its next choice: "WING PICTURES Terry Pratchett"
        // beside "MOVING PICTURES Terry Pratchett" is Moving Pictures again, not Wings.
        if Self.sameInkOnce {
            for i in chosen.indices {
                guard let given = assigned[i], let first = chosen[i].group.matches.first else { continue }
                let firstKeys = Set(MatchAssignment.identity(first.book))
                guard firstKeys.isDisjoint(with: MatchAssignment.identity(given.book)) else { continue }
                let readTwice = chosen.indices.contains { j in
                    guard j != i, let other = assigned[j], !firstKeys.isDisjoint(with: MatchAssignment.identity(other.book)) else { return false }
                    return chosen[i].lines.allSatisfy { line in chosen[j].lines.contains { RegionReader.overlap($0.box, line.box) > 0.5 } }
                }
                if readTwice { assigned[i] = nil; rereadRuns.insert(i) }
            }
        }
        assigned = MatchAssignment.refusingTies(assigned, chosen.map(\.group.matches), floor: minimumScore)
        if SpineFinder.trace {
            for (i, c) in chosen.enumerated() {
                FileHandle.standardError.write(Data("  CHOSEN \(c.group.first)-\(c.group.last) first \(c.group.matches.first?.book.title ?? "-") given \(assigned[i]?.book.title ?? "nil") lines \(c.lines.map(\.text))\n".utf8))
            }
        }
        var found: [(book: BookEntity, lines: [ReadLine])] = []
        for (i, match) in assigned.enumerated() {
            guard let match else { continue }
            let (_, lines, boxes) = chosen[i]
            found.append((Self.entity(match, lines: lines, regions: boxes), lines))
        }
        var books = Self.withoutEchoes(found)
        // A run whose first choice another run named, given its next choice on words that first
        // choice explains, is that book read again too (windows overlapping in part): "POTTER
        // J.K.ROWLING" and "and the Goblet of Fire BLOO" beside the run naming *Harry Potter and
        // the Goblet of Fire* named *... the Half-Blood Prince*. Its next choice stands only when
        // the words left once the first choice's are taken out still name it or hold one of its
        // words read whole (`holdsWord`). The first choice must be among the books found in the
        // end: *Black & Blue* given to a run and then dropped as a piece of *Black Diamonds and
        // the Blue Brazil* explains nothing. Volumes of one work are left to the tie rules. Any
        // candidate of the run found elsewhere, not only its first choice, was tried (it caught
        // a title's second line, *RSPB Handbook of British Birds* beside *... of Garden
        // Wildlife*): six books of series lost (*Spiegel van steden ... Noord* and *Zuid
        // Nederland*, *King of Thorns*, *No Castanets at the Wells*, *The Pale Horse*).
        if Self.explainedAway {
            var named = Set(books.flatMap(Self.identity))
            for i in chosen.indices {
                guard let given = assigned[i], let first = chosen[i].group.matches.first else { continue }
                let firstKeys = Set(MatchAssignment.identity(first.book))
                let givenKeys = Set(MatchAssignment.identity(given.book))
                guard firstKeys.isDisjoint(with: givenKeys), !firstKeys.isDisjoint(with: named),
                      !Self.volumes(first.book, given.book) else { continue }
                let rest = Self.without(first.book, chosen[i].lines)
                let still = !rest.isEmpty && (Self.holdsWord(of: given.book, rest)
                    || matcher.matches(for: Self.regionText(rest)).contains {
                        $0.score >= minimumScore && !givenKeys.isDisjoint(with: MatchAssignment.identity($0.book))
                    })
                guard !still else { continue }
                for book in books where !givenKeys.isDisjoint(with: Self.identity(book)) { named.subtract(Self.identity(book)) }
                books.removeAll { !givenKeys.isDisjoint(with: Self.identity($0)) }
                assigned[i] = nil
                rereadRuns.insert(i)
            }
        }
        // Text already explained is not "unidentified": a found book's own lines, another reading
        // of their ink (overlapping windows read a spine twice), or words of a found book's title.
        let explained = chosen.indices.filter { assigned[$0] != nil || rereadRuns.contains($0) }.flatMap { chosen[$0].lines }
        let matchedLines = Set(explained.map(\.box))
        let explainedLetters = explained.map { Self.letters($0.text) }
        let titles = books.compactMap { $0.title.map(Self.letters) }
        // Nor a found book's title and authors read again badly elsewhere ("Th Lonely Passion of
        // Judith Hearne Brian Moore"), nor its authors' names on its own spine (`FoundWords`).
        let foundWords = books.map(FoundWords.init)
        let spinesOf = books.map { book in
            let boxes = Set(book.evidence.map(\.box))
            return Set(perRegion.indices.filter { r in perRegion[r].contains { boxes.contains($0.box) } })
        }
        var unidentified: [UnidentifiedText] = []
        for (r, lines) in perRegion.enumerated() {
            let left = lines.filter { line in
                guard !matchedLines.contains(line.box), Self.looksLikeTitle(line) else { return false }
                let letters = Self.letters(line.text)
                func within(_ other: String) -> Bool { other.contains(letters) || (other.count >= 5 && letters.contains(other)) }
                guard !explained.indices.contains(where: { RegionReader.overlap(explained[$0].box, line.box) > 0.5 && within(explainedLetters[$0]) }),
                      !titles.contains(where: { within($0) }) else { return false }
                let words = FoundWords.words(line.text)
                return !foundWords.indices.contains { foundWords[$0].explain(words, titleWord: !spinesOf[$0].contains(r)) }
            }
            guard !left.isEmpty else { continue }
            // Each text once: the passes read a spine's line again as it was ("ht Garden" seven
            // times over suzanne1's spine).
            var seen = Set<String>()
            let text = left.filter { seen.insert(Self.letters($0.text)).inserted }.map(\.text).joined(separator: " / ")
            if unidentified.contains(where: { Self.letters($0.text) == Self.letters(text) }) { continue }
            let box = left.map(\.box).reduce(left[0].box) { Self.union($0, $1) }
            unidentified.append(UnidentifiedText(text: text, box: box,
                                                 ocrConfidence: left.map(\.confidence).reduce(0, +) / Double(left.count)))
        }
        return (books.sorted { $0.confidence > $1.confidence }, unidentified)
    }

    /// A found book's words (title and authors' names), to tell text left over that only reads
    /// them again from text that names nothing found (`UnidentifiedText`), and the book's own
    /// lines that bear no trace of it (`telling`).
    struct FoundWords {
        let title: [[Unicode.Scalar]]
        let names: [[Unicode.Scalar]]

        init(_ book: BookEntity) {
            let title = MatchText.words([book.title, book.subtitle].compactMap { $0 }.joined(separator: " "))
            // Two title words run together as one ("THEOREHARD" for *The Orchard on Fire*).
            self.title = (title + zip(title, title.dropFirst()).map { $0 + $1 }).map { Array($0.unicodeScalars) }
            names = book.authors.flatMap(MatchText.words).map { Array($0.unicodeScalars) }
            spelled = (self.title + names).map { String(String.UnicodeScalarView($0)) }
            isbns = [book.isbn13, book.isbn10].compactMap { $0 }
        }

        /// `title` and `names`, as strings.
        let spelled: [String]
        let isbns: [String]

        /// Whether `text` bears any trace of this book: a word of two letters or more like one of
        /// the title's or the authors' words (`WordSimilarity.credit` above nothing), from three
        /// letters a piece of one or one inside it ("WONDER" and "LAND" of *Alice in Wonderland*,
        /// "RETU" of *The Return of the King*; common words such as "the" aside: "OTHER" holds
        /// no trace of *The Fix*), or three digits or more of its ISBN. The other
        /// lines of a run matched, "si", "nae", "So." read from a spine's edges and pictures, are
        /// no evidence for it (`telling`).
        func traces(_ text: String) -> Bool {
            MatchText.words(text).contains { word in
                guard word.count >= 2 else { return false }
                if word.allSatisfy(\.isNumber) { return word.count >= 3 && isbns.contains { $0.contains(word) } }
                let w = Array(word.unicodeScalars)
                return zip(title + names, spelled).contains { t, spelt in
                    WordSimilarity.credit(w, t) > 0
                        || (min(w.count, t.count) >= 3 && !MatchText.commonWords.contains(spelt) && !MatchText.commonWords.contains(word)
                            && (spelt.contains(word) || word.contains(spelt)))
                }
            }
        }

        /// `evidence` without the lines of text bearing no trace of the book (`traces`), unless
        /// none does.
        func telling(_ evidence: [Evidence]) -> [Evidence] {
            let kept = evidence.filter { $0.kind != .text || traces($0.text) }
            return kept.contains { $0.kind == .text } || !evidence.contains { $0.kind == .text } ? kept : evidence
        }

        /// Whether `text` is this book's words read again: seven in ten of its letters (in words of
        /// two letters or more) are in words read as one of the title's or the authors' (credit
        /// 0.75 or more, `WordSimilarity.credit`). `titleWord`: one of them must be a telling word
        /// of the title (three letters or more, not a common word), not only the authors' names,
        /// which a spine of another book by them prints too.
        func explain(_ text: String, titleWord: Bool) -> Bool {
            explain(Self.words(text), titleWord: titleWord)
        }

        /// `text`'s words as `explain` weighs them (two letters or more), with their letters:
        /// worked out once for a line weighed against every book found.
        static func words(_ text: String) -> [(word: String, letters: [Unicode.Scalar])] {
            MatchText.words(text).filter { $0.count >= 2 }.map { ($0, Array($0.unicodeScalars)) }
        }

        /// `explain` for a line's `words`.
        func explain(_ words: [(word: String, letters: [Unicode.Scalar])], titleWord: Bool) -> Bool {
            guard !words.isEmpty else { return false }
            var total = 0, covered = 0, telling = false
            for (word, w) in words {
                total += w.count
                let inTitle = title.contains { WordSimilarity.credit(w, $0) >= 0.75 }
                if inTitle || names.contains(where: { WordSimilarity.credit(w, $0) >= 0.75 }) { covered += w.count }
                if inTitle, w.count >= 3, !MatchText.commonWords.contains(word) { telling = true }
            }
            return Double(covered) >= 0.7 * Double(total) && (telling || !titleWord)
        }
    }

    /// The windows a wide space is cut into overlap, so the same ink can be read twice, by two
    /// regions, and a spine's retries read it again. A book whose every line rereads (the same
    /// letters, give or take some junk: `rereads`; the same ink) a line of a more confident book
    /// is that book's echo, not a second book ("BLACK" beside "BLACK SWAN").
    /// Dropping rereads before matching instead lost books (175 against 179 of 615 on the real
    /// shelves): a title's two copies can each complete a different group.
    ///
    /// Likewise a book whose title words all belong to a more confident book's title and which
    /// was read (in part) from that book's ink is a fragment of it: "Strangers" from a window over
    /// *The Kindness of Strangers*, "The Keeping" over *Keeping Pet Chickens*, Hamilton's *Danse
    /// Macabre* over King's.
    static func withoutEchoes(_ books: [(book: BookEntity, lines: [ReadLine])]) -> [BookEntity] {
        // Each book's lines' letters and title words once: a full shelf's 50 books compared
        // pairwise, line by line, made them 4,000 times each (170 ms of the 12 MP shelf).
        struct Found {
            let book: BookEntity
            let lines: [ReadLine]
            let letters: [String]
            let core: Set<String>
            let all: Set<String>
            /// The title's words and the authors' names' words, spelled out (`piece`).
            let spelled: [[Unicode.Scalar]]
        }
        let sorted = books.sorted(by: { $0.book.confidence > $1.book.confidence }).map { b in
            let t = MatchText.rememberedTitle(b.book.title ?? "", subtitle: b.book.subtitle)
            let all = Set(t.core + t.extra)
            return Found(book: b.book, lines: b.lines, letters: b.lines.map { letters($0.text) },
                         core: Set(t.core).subtracting(MatchText.commonWords), all: all,
                         spelled: (all.sorted() + b.book.authors.flatMap(MatchText.words)).map { Array($0.unicodeScalars) })
        }
        func sharesInk(_ a: Found, _ b: Found) -> Bool {
            a.lines.contains { line in b.lines.contains { RegionReader.overlap($0.box, line.box) > 0.5 } }
        }
        var kept: [Found] = []
        for candidate in sorted {
            let echo = !candidate.lines.isEmpty && candidate.lines.indices.allSatisfy { i in
                kept.contains { other in
                    other.lines.indices.contains { j in
                        RegionReader.overlap(other.lines[j].box, candidate.lines[i].box) > 0.5
                            && rereads(letters: candidate.letters[i], other.letters[j])
                    }
                }
            }
            let words = candidate.core
            let fragment = !words.isEmpty && kept.contains { other in words.isSubset(of: other.all) && sharesInk(candidate, other) }
            if !echo && !fragment { kept.append(candidate) }
        }
        guard Self.piecesOfLonger else { return kept.map(\.book) }
        // Whichever is surer: a title read whole ("Heaven" at 95) out of the ink of a longer
        // title that holds it (*The Lathe of Heaven*, its spine read at 51) is a piece of that;
        // a title of look-alike words ("Lost Continent" over "THE LAST CONTINENT") is the surer one's.
        let pieces = Set(kept.indices.filter { b in
            kept.indices.contains { a in
                guard a != b, sharesInk(kept[b], kept[a]),
                      let longer = piece(kept[b].core, kept[b].all, of: kept[a].core, kept[a].spelled) else { return false }
                return longer || a < b
            }
        })
        return kept.indices.filter { !pieces.contains($0) }.map { kept[$0].book }
    }

    /// Whether a title (its telling words `core`, all its words `all`) is, by its words alone, a
    /// piece of another title: each telling word (three letters or more, or a number) like one
    /// of the other's words or its authors' names (`spelled`; credit 0.75 or more, one letter in
    /// four: "Stranger" in *The Kindness of Strangers*, "Devolution" in *... the Evolution of
    /// Scientific Concepts*, "David" on David Lindsay's spine, "Lost" for "Last"). nil when not;
    /// true when the other title also holds a telling word like none of its own (it says more),
    /// false when it does not (look-alike titles, or one title twice: the surer one stays).
    static func piece(_ core: Set<String>, _ all: Set<String>, of otherCore: Set<String>, _ spelled: [[Unicode.Scalar]]) -> Bool? {
        func like(_ w: String, _ words: [[Unicode.Scalar]]) -> Bool {
            let s = Array(w.unicodeScalars)
            return words.contains { WordSimilarity.credit(s, $0) >= 0.75 }
        }
        // Telling words: of three letters or more, or with a digit ("Volume 2" is not "Volume 1").
        func telling(_ words: Set<String>) -> [String] { words.filter { $0.count >= 3 || $0.contains(where: \.isNumber) } }
        let words = telling(core)
        guard !words.isEmpty, words.allSatisfy({ like($0, spelled) }) else { return nil }
        let own = all.map { Array($0.unicodeScalars) }
        return telling(otherCore).contains { !like($0, own) }
    }

    /// `SHELFSCAN_PIECES_OF_LONGER=off`: a book read out of another title's ink is dropped only
    /// when less sure than that book and its words are the other's exactly, as before the
    /// thirty-sixth session.
    static let piecesOfLonger = ProcessInfo.processInfo.environment["SHELFSCAN_PIECES_OF_LONGER"] != "off"

    static func letters(_ text: String) -> String { String(text.lowercased().filter(\.isLetter)) }

    /// Whether two lines read the same letters, give or take a few letters of junk around one of
    /// them ("Bf GEORGE ORWELL ANIMAL FARM" and "GEORGE ORWELL ANIMAL FARM", two readings of one
    /// spine): the shorter, of five letters or more, within the longer, which has at most four
    /// letters more or a third of the shorter's. A line that holds another and a title besides
    /// is no rereading of it: "The Silver Chair C. S. LEWIS" holds the "C. S. LEWIS" that
    /// completed *The Voyage of the Dawn Treader* beside it (`SHELFSCAN_ECHO_JUNK=any`: any).
    static func rereads(_ a: ReadLine, _ b: ReadLine) -> Bool {
        rereads(letters: letters(a.text), letters(b.text))
    }

    /// `rereads` of two lines' letters (`letters`).
    static func rereads(letters x: String, _ y: String) -> Bool {
        let (short, long) = x.count <= y.count ? (x, y) : (y, x)
        return short == long || (short.count >= 5 && long.contains(short)
            && (!fewJunkLetters || long.count - short.count <= max(4, short.count / 3)))
    }

    /// `SHELFSCAN_ECHO_JUNK=any`: a line within any longer line on the same ink is its echo, as before
    /// the eighth session of 2026-11-25.
    static let fewJunkLetters = ProcessInfo.processInfo.environment["SHELFSCAN_ECHO_JUNK"] != "any"

    /// Picks non-overlapping groups maximising the sum of (score - threshold), a run across two
    /// regions scoring `crossing` less: where runs within their own spines explain the lines
    /// nearly as well, a run borrowing a line from the next spine (its author's name) does not
    /// take it from the book it belongs to (adam2: [NO STARS + STEPHEN KING] 0.97 and [DOCTOR
    /// SLEEP + the next spine's STEPHEN KING] 0.99 beat [FULL DARK NO STARS] 0.95 and
    /// [STEPHEN KING + DOCTOR SLEEP] 0.99 by 0.02). A spine split by a false edge still reads
    /// as one run across it: the penalty only settles near ties.
    static func schedule(_ groups: [Group], count: Int, threshold: Double, crossing: Double = crossPenalty) -> [Group] {
        guard !groups.isEmpty else { return [] }
        var best = [Double](repeating: 0, count: count + 1)
        var choice = [Int?](repeating: nil, count: count + 1)
        let byEnd = Dictionary(grouping: groups.indices, by: { groups[$0].last })
        for end in 0..<count {
            best[end + 1] = best[end]
            choice[end + 1] = nil
            for g in byEnd[end] ?? [] {
                let value = best[groups[g].first] + (groups[g].best - threshold) + 1e-6
                    - (groups[g].crossing ? crossing : 0) + lineReward * Double(groups[g].last - groups[g].first + 1)
                if value > best[end + 1] { best[end + 1] = value; choice[end + 1] = g }
            }
        }
        var picked: [Group] = []
        var i = count
        while i > 0 {
            if let g = choice[i] { picked.append(groups[g]); i = groups[g].first } else { i -= 1 }
        }
        return picked.reversed()
    }

    /// What a run across two regions loses in `schedule` (`SHELFSCAN_CROSS_PENALTY`; 0 as
    /// before the twenty-seventh session).
    static let crossPenalty = Double(ProcessInfo.processInfo.environment["SHELFSCAN_CROSS_PENALTY"] ?? "") ?? 0.04
    /// What each line a run explains adds in `schedule` (`SHELFSCAN_LINE_REWARD`, for measuring:
    /// 0.02 found as many books and returned two more unlabelled, README Accuracy).
    static let lineReward = Double(ProcessInfo.processInfo.environment["SHELFSCAN_LINE_REWARD"] ?? "") ?? 0

    /// Whether `text` (a line of a book's evidence) is only its authors' names ("STEPHEN: KING"
    /// for a Stephen King): such a line, borrowed by a run from the spine beside its title's,
    /// does not make that spine named, and the passes after still read it (`unnamed`,
    /// `namingLines`).
    /// Words shorter than `shortest` letters are left out.
    static func authorsOnly(_ text: String, of authors: [String], shortest: Int = 2) -> Bool {
        let names = Set(authors.flatMap(MatchText.authorWords))
        let words = MatchText.words(text).filter { $0.count >= shortest }
        return !names.isEmpty && !words.isEmpty && words.allSatisfy(names.contains)
    }

    /// Regions that are the other part of a named book's spine, cut off by a false edge: a
    /// region that lent a line to a book read in the region beside it (its title there, in a
    /// `naming` line), the two together no thicker than the row's typical spine, and whose
    /// sure lines (confidence 80 or more) are all that book's evidence or its authors' names
    /// (words of three letters or more). An author's line lent by a spine of its own, by the same author, sits in
    /// a region about a spine thick beside its neighbour's: that stays unnamed, and read again.
    static func splitParts(books: [BookEntity], lines: [[ReadLine]], regions: [TextRegion],
                           naming: Set<BoundingBox>) -> Set<Int> {
        guard Self.splitSpines else { return [] }
        func across(_ r: Int) -> (Int, Int) {
            let b = regions[r].box
            return regions[r].layout == .lyingSpine ? (b.y, b.y + b.height) : (b.x, b.x + b.width)
        }
        var parts = Set<Int>()
        for book in books {
            let evidence = Set(book.evidence.map(\.box))
            let holding = regions.indices.filter { r in lines[r].contains { evidence.contains($0.box) } }
            let titled = holding.filter { r in lines[r].contains { evidence.contains($0.box) && naming.contains($0.box) } }
            for r in holding where !titled.contains(r) && regions[r].layout != .cover {
                let beside = titled.contains { t in
                    guard regions[t].row == regions[r].row, abs(regions[t].index - regions[r].index) == 1 else { return false }
                    let (a, b) = (across(r), across(t))
                    return Double(max(a.1, b.1) - min(a.0, b.0)) <= Self.splitThickness * regions[r].typicalThickness
                }
                let onlyThatBook = lines[r].allSatisfy { line in
                    // The authors' names, junk of a letter or two around them aside ("MIGUEL DELIBES mA").
                    line.confidence < 80 || evidence.contains(line.box) || authorsOnly(line.text, of: book.authors, shortest: 3)
                }
                if beside && onlyThatBook { parts.insert(r) }
            }
        }
        return parts
    }

    /// Regions over a named book's spine again: a window overlapping the region that named it
    /// (across, by half the thinner or more, in the same row), whose own band bears a sure line
    /// (confidence `windowConfidence` or more) that is that book's title read again
    /// (`FoundWords.explain`, a telling title word among its words). A spine has one title, so
    /// the region's spine is that book's, named already; the passes after read it no more.
    /// Before, overlapping windows over one spine (`suzanne2`'s paperbacks, split in two regions
    /// each: "A MOVING PICTURES Tove" beside the region that named *Moving Pictures*) went
    /// through every pass (`SHELFSCAN_WINDOWS_OVER_NAMED=off`).
    static func windowsOverNamed(books: [BookEntity], lines: [[ReadLine]], regions: [TextRegion],
                                 naming: Set<BoundingBox>) -> Set<Int> {
        guard Self.windowsOverNamed else { return [] }
        func across(_ r: Int) -> (Double, Double) {
            if let band = regions[r].band { return (band.lowerBound, band.upperBound) }
            let b = regions[r].box
            return regions[r].layout == .lyingSpine ? (Double(b.y), Double(b.y + b.height)) : (Double(b.x), Double(b.x + b.width))
        }
        var windows = Set<Int>()
        for book in books {
            let evidence = Set(book.evidence.map(\.box))
            let titled = regions.indices.filter { r in lines[r].contains { naming.contains($0.box) && evidence.contains($0.box) } }
            guard !titled.isEmpty else { continue }
            let words = FoundWords(book)
            for r in regions.indices where !titled.contains(r) && regions[r].layout != .cover {
                let beside = titled.contains { t in
                    guard regions[t].row == regions[r].row, regions[t].layout == regions[r].layout else { return false }
                    let (a, b) = (across(r), across(t))
                    let shared = min(a.1, b.1) - max(a.0, b.0)
                    return shared >= 0.5 * min(a.1 - a.0, b.1 - b.0)
                }
                guard beside else { continue }
                if lines[r].contains(where: { line in
                    line.confidence >= Self.windowConfidence && regions[r].holds(line.box) && words.explain(line.text, titleWord: true)
                }) {
                    windows.insert(r)
                }
            }
        }
        return windows
    }

    /// `SHELFSCAN_WINDOWS_OVER_NAMED=off`: a region over a named book's spine again is read by
    /// every pass (as before the thirty-seventh session).
    static let windowsOverNamed = ProcessInfo.processInfo.environment["SHELFSCAN_WINDOWS_OVER_NAMED"] != "off"
    /// How sure a line must be to make its region a window over a named spine.
    static let windowConfidence = 70.0

    /// How thick two regions may be together, in typical spines, to be parts of one
    /// (`splitParts`; `SHELFSCAN_SPLIT_SPINES=off` treats none so, for measuring;
    /// `SHELFSCAN_SPLIT_THICKNESS` sets the 1.5).
    static let splitSpines = ProcessInfo.processInfo.environment["SHELFSCAN_SPLIT_SPINES"] != "off"
    static let splitThickness = Double(ProcessInfo.processInfo.environment["SHELFSCAN_SPLIT_THICKNESS"] ?? "") ?? 1.5

    /// Whether `text` (a line of a book's evidence) holds a word of its title (a telling one,
    /// when it has any: not "the", "of"), read exactly, nearly (`WordSimilarity` 0.75 or more)
    /// or within a longer run of letters, for words of four letters or more.
    static func holdsTitleWord(_ text: String, title: String, subtitle: String?) -> Bool {
        let title = MatchText.rememberedTitle(title, subtitle: subtitle)
        let all = title.core + title.extra
        let telling = all.filter { !MatchText.commonWords.contains($0) }
        let words = Set(telling.isEmpty ? all : telling)
        return MatchText.words(text).contains { r in
            words.contains { w in
                r == w || (min(r.count, w.count) >= 4
                    && (r.contains(w) || WordSimilarity.similarity(Array(r.unicodeScalars), Array(w.unicodeScalars)) >= 0.75))
            }
        }
    }

    /// Which lines of a book's evidence make their region named (`unnamed`;
    /// `SHELFSCAN_NAMING_LINES`): "author", all but those of only its authors' names
    /// (`authorsOnly`); "title", those holding a word of its title (`holdsTitleWord`); "any",
    /// every line (as before the twenty-sixth session).
    static let namingLines = ProcessInfo.processInfo.environment["SHELFSCAN_NAMING_LINES"] ?? "title"

    /// Whether the lines a reading `read` name a book (a match scoring `minimumScore` or more),
    /// alone or beside the region's `sure` lines.
    static func names(_ read: [ReadLine], besides sure: [ReadLine], matcher: BookMatcher, minimumScore: Double) -> Bool {
        !read.isEmpty && [read, read + sure].contains { (matcher.matches(for: regionText($0)).first?.score ?? 0) >= minimumScore }
    }

    /// A line over the ink of an earlier one, read the same way, is a reread (`TextLine.reread`).
    static func regionText(_ lines: [ReadLine]) -> RegionText {
        RegionText(lines: lines.enumerated().map { i, line in
            let reread = Self.rereads && lines[..<i].contains { $0.quarterTurns == line.quarterTurns && RegionReader.overlap($0.box, line.box) > 0.5 }
            return TextLine(text: line.text, confidence: line.confidence, height: line.textHeight, wordConfidences: line.wordConfidences, reread: reread)
        })
    }

    /// `lines` without the tokens (words between spaces) that `book`'s title and authors explain:
    /// a token holding a telling word (three letters or more, not a common word, or a number)
    /// whose every word is one of theirs, the telling ones also like one of theirs (credit 0.75
    /// or more): "J.K.ROWLING", "Goblet". Tokens of only common words stay ("the", "of"), and
    /// lines left empty go.
    static func without(_ book: Book, _ lines: [ReadLine]) -> [ReadLine] {
        let t = MatchText.rememberedTitle(book.title, subtitle: book.subtitle)
        let theirs = Set(t.core + t.extra + book.authors.flatMap(MatchText.words))
        let spelled = theirs.map { Array($0.unicodeScalars) }
        func explained(_ token: Substring) -> Bool {
            let words = MatchText.words(String(token))
            guard words.contains(where: telling) else { return false }
            return words.allSatisfy { w in
                theirs.contains(w) || (w.count > 2 && !MatchText.commonWords.contains(w)
                    && spelled.contains { WordSimilarity.credit(Array(w.unicodeScalars), $0) >= 0.75 })
            }
        }
        return lines.compactMap { line in
            let tokens = line.text.split(separator: " ")
            let keep = tokens.indices.filter { !explained(tokens[$0]) }
            guard !keep.isEmpty else { return nil }
            guard keep.count < tokens.count else { return line }
            let confidences = line.wordConfidences.flatMap { c in c.count == tokens.count ? keep.map { c[$0] } : nil }
            var rest = ReadLine(text: keep.map { String(tokens[$0]) }.joined(separator: " "), confidence: line.confidence, box: line.box,
                                textHeight: line.textHeight, quarterTurns: line.quarterTurns,
                                readingConfidence: line.readingConfidence, wordConfidences: confidences)
            rest.cutOut = line.cutOut
            return rest
        }
    }

    /// Whether `lines` hold a telling word of `book`'s title or authors (three letters or more,
    /// not a common word, or a number) read whole: credit 0.9 or more ("Rankin" beside "BLACK"
    /// is Ian Rankin's *The Black Book* even where "BLACK" is *Black Diamonds and the Blue
    /// Brazil*'s too; "BLOO" is no more than a piece of "Blood").
    static func holdsWord(of book: Book, _ lines: [ReadLine]) -> Bool {
        let t = MatchText.rememberedTitle(book.title, subtitle: book.subtitle)
        let theirs = (t.core + t.extra + t.volume + book.authors.flatMap(MatchText.words))
            .filter(telling)
            .map { Array($0.unicodeScalars) }
        return lines.contains { line in
            MatchText.words(line.text).contains { w in
                let s = Array(w.unicodeScalars)
                return theirs.contains { WordSimilarity.credit(s, $0) >= 0.9 }
            }
        }
    }

    /// A word that says which book (`without`, `holdsWord`): three letters or more and not a
    /// common word, or holding a number.
    static func telling(_ word: String) -> Bool {
        word.count >= 3 && !MatchText.commonWords.contains(word) || word.contains(where: \.isNumber)
    }

    /// Whether two titles differ only by numbers (arabic or roman): volumes of one work, "Immortal
    /// Rails Volume 1" and "Volume 2", whose spines read alike but for the number.
    static func volumes(_ a: Book, _ b: Book) -> Bool {
        func words(_ book: Book) -> Set<String> {
            let t = MatchText.rememberedTitle(book.title, subtitle: book.subtitle)
            return Set(t.core + t.extra + t.volume)
        }
        let differ = words(a).symmetricDifference(words(b))
        return !differ.isEmpty && differ.allSatisfy { $0.allSatisfy(\.isNumber) || Self.romanNumerals.contains($0) }
    }

    /// Roman numerals 1 to 39, lower case ("ii", "xiv"), as volume numbers are printed.
    static let romanNumerals: Set<String> = Set((1...39).map { n in
        String(repeating: "x", count: n / 10) + ["", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"][n % 10]
    })

    /// What makes two books found the same book (`MatchAssignment.identity`: the same title and
    /// first author, or the same ISBN).
    static func identity(_ book: BookEntity) -> [String] {
        MatchAssignment.identity(title: book.title ?? "", subtitle: book.subtitle, authors: book.authors, id: nil, isbn13: book.isbn13)
    }

    /// `SHELFSCAN_EXPLAINED=off`: a run whose first choice went to another run keeps its next
    /// choice whatever words it was named by (as before the thirty-seventh session).
    static let explainedAway = ProcessInfo.processInfo.environment["SHELFSCAN_EXPLAINED"] != "off"

    /// `SHELFSCAN_SAME_INK=off`: a run whose first choice went to a run over the same ink takes its next choice.
    static let sameInkOnce = ProcessInfo.processInfo.environment["SHELFSCAN_SAME_INK"] != "off"

    /// `SHELFSCAN_REREAD=off`: a second reading of a line's ink counts against a book in full.
    static let rereads = ProcessInfo.processInfo.environment["SHELFSCAN_REREAD"] != "off"

    /// Confident, mostly letters, several of them: text a person would call a title.
    static func looksLikeTitle(_ line: ReadLine) -> Bool {
        let letters = line.text.filter(\.isLetter).count
        return line.confidence >= 80 && letters >= 5 && Double(letters) >= 0.7 * Double(line.text.filter { !$0.isWhitespace }.count)
    }

    static func union(_ a: BoundingBox, _ b: BoundingBox) -> BoundingBox {
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        return BoundingBox(x: x0, y: y0, width: max(a.x + a.width, b.x + b.width) - x0, height: max(a.y + a.height, b.y + b.height) - y0)
    }

    /// The book, with the lines it was read from as evidence, all on `region`.
    static func entity(_ match: BookMatch, lines: [ReadLine], region: TextRegion) -> BookEntity {
        entity(match, lines: lines, regions: lines.map { _ in region.box })
    }

    /// The book, with the lines it was read from as evidence, each on the region whose box is
    /// beside it in `regions`. Confidence combines the match score with how sure the OCR was of
    /// the text.
    static func entity(_ match: BookMatch, lines: [ReadLine], regions: [BoundingBox]) -> BookEntity {
        let book = match.book
        let ocr = lines.map(\.confidence).reduce(0, +) / Double(max(1, lines.count))
        let confidence = TextConfidence.calibrated(score: match.score, ocrConfidence: ocr)
        let evidence = zip(lines, regions).map { Evidence(line: $0, matchScore: match.score, region: $1) }
        return BookEntity(
            title: book.title.isEmpty ? nil : book.title, subtitle: book.subtitle, authors: book.authors,
            isbn13: book.isbn13, isbn10: book.isbn10, inLibrary: book.owned, libraryId: book.owned ? book.id : nil,
            readingStatus: book.owned ? book.readingStatus : nil, source: book.owned ? "library" : "catalog",
            publisher: book.publisher, year: book.year, coverURL: book.coverURL,
            confidence: confidence, evidence: evidence)
    }
}

/// Turns a match score and OCR confidence into the probability that the book is really there.
///
/// `raw` (the match score, a little less where Tesseract doubted the text) orders books well but
/// says too little: on the real shelf photos, books at a raw 0.8-0.9 were right 97 times in 100
/// and at 0.5-0.7 77 times. The logistic curve below was fitted to the 354 books returned there
/// (maximum likelihood, 2026-11-25; fitted on half of the photos, it lowered the other half's
/// log-loss from 0.262 to 0.200 over 20 random splits, slopes 10-20, middles 0.45-0.60), so that a
/// book reported at 0.9 is right about nine times in ten. Monotone: the ranking is unchanged.
/// Capped at 0.99, as three agreeing barcode scan lines are: text is never certain.
enum TextConfidence {
    static let slope = 14.0
    static let middle = 0.56

    static func raw(score: Double, ocrConfidence: Double) -> Double {
        let s = min(1, max(0, score)), o = min(1, max(0, ocrConfidence / 100))
        return 0.85 * s + 0.15 * o * s
    }

    static func calibrated(score: Double, ocrConfidence: Double) -> Double {
        let p = 1 / (1 + exp(-slope * (raw(score: score, ocrConfidence: ocrConfidence) - middle)))
        return min(0.99, p.rounded(toPlaces: 2))
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let f = pow(10, Double(places))
        return (self * f).rounded() / f
    }
}

/// Matches of the line runs of one photo, by their text (lines, confidences, heights).
/// `@unchecked Sendable`: every access to `known` is under `lock`.
final class MatchMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var known: [Key: [BookMatch]] = [:]

    /// A run's text, each number by its bits (formatting them as text, as the key was until the
    /// fifty-second session, cost more than the lookup: 0.85% of `gardening`'s CPU), and for
    /// `kept` its shape.
    struct Key: Hashable {
        struct Line: Hashable {
            let text: String
            let confidence: UInt64
            let height: UInt64
            let words: [UInt64]?
            let reread: Bool
        }
        let lines: [Line]
        let shape: [String]?

        init(_ text: RegionText, shape: [String]? = nil) {
            lines = text.lines.map { line in
                Line(text: line.text, confidence: line.confidence.bitPattern, height: line.height.bitPattern,
                     words: line.wordConfidences?.map(\.bitPattern), reread: line.reread)
            }
            self.shape = shape
        }
    }

    func matches(for text: RegionText, _ compute: () -> [BookMatch]) -> [BookMatch] {
        remembered(Key(text), counted: false, compute)
    }

    /// What `TextStage.match` keeps of a run's matches, by its text and `shape` (each line's
    /// way, cut out or not, on a standing spine or not); apart from `matches`' keys.
    func kept(for text: RegionText, shape: [String], _ compute: () -> [BookMatch]) -> [BookMatch] {
        remembered(Key(text, shape: shape), counted: true, compute)
    }

    /// How many runs `kept` was asked for and how many of them it worked out (for the trace).
    var counts: (asked: Int, computed: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (asked, computed)
    }
    private var asked = 0
    private var computed = 0

    private func remembered(_ key: Key, counted: Bool, _ compute: () -> [BookMatch]) -> [BookMatch] {
        lock.lock()
        if counted { asked += 1 }
        if let hit = known[key] { lock.unlock(); return hit }
        lock.unlock()
        let found = compute()
        lock.lock()
        known[key] = found
        if counted { computed += 1 }
        lock.unlock()
        return found
    }
}

/// Fixed slots written from concurrent iterations, one slot per iteration.
/// `@unchecked Sendable`: every access is under `lock`.
/// Indices 0..<count handed out once each, in order, to whichever worker asks.
/// `@unchecked Sendable`: `taken` is only touched under `lock`.
final class IndexQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = 0
    let count: Int
    init(count: Int) { self.count = count }
    /// The next index, and whether it is the last; nil once all were handed out.
    func next() -> (index: Int, last: Bool)? {
        lock.lock()
        defer { lock.unlock() }
        guard taken < count else { return nil }
        taken += 1
        return (taken - 1, taken == count)
    }
}

final class ResultSlots<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [T?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: T) { lock.lock(); slots[i] = value; lock.unlock() }
    var values: [T?] { lock.lock(); defer { lock.unlock() }; return slots }
}
