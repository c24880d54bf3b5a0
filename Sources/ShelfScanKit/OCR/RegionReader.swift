import Foundation

/// A line of text read in a region, placed in the photo.
public struct ReadLine: Sendable, Codable, Equatable {
    public let text: String
    /// Tesseract's confidence, 0-100.
    public let confidence: Double
    /// Where the line lies in the upright full-resolution image.
    public let box: BoundingBox
    /// Height of the text in the photo's pixels (across the line): bigger text is more title-like.
    public let textHeight: Double
    /// Quarter turns (clockwise) under which it was read: 1 means the spine reads bottom to top
    /// (turning it clockwise makes it upright), 3 top to bottom, 0 upright, 2 upside down.
    public let quarterTurns: Int
    /// Tesseract's confidence in the whole line as read, unsure words included (0-100): what
    /// decides between two directions read over the same ink. Upside down, a spine can keep one
    /// confident word ("NOW" reads "MON") among junk that the word filter drops.
    public let readingConfidence: Double
    /// Each word's confidence (the words of `text` split at spaces), when known.
    public let wordConfidences: [Double]?
    /// Read from a line of print cut out of its spine alone (`RegionReader.readAlongLines`):
    /// a word of it alone may be a publisher's name or a series' as well as a title's.
    public var cutOut = false

    public init(text: String, confidence: Double, box: BoundingBox, textHeight: Double, quarterTurns: Int,
                readingConfidence: Double? = nil, wordConfidences: [Double]? = nil) {
        self.text = text
        self.confidence = confidence
        self.box = box
        self.textHeight = textHeight
        self.quarterTurns = quarterTurns
        self.readingConfidence = readingConfidence ?? confidence
        self.wordConfidences = wordConfidences
    }

    /// Nothing but letters `other` already holds, read from (mostly) the same ink, whatever the
    /// confidence ("GEORGE ORWELL ANIMAL FARM" beside "Bf GEORGE ORWELL ANIMAL FARM").
    func addsNothing(to other: ReadLine) -> Bool {
        RegionReader.overlap(box, other.box) > 0.5 && TextStage.letters(other.text).contains(TextStage.letters(text))
    }

    /// The same line with its box cut to the photo (a line read near a deskewed crop's corner
    /// can map a few pixels beyond the photo's edge).
    func inside(width: Int, height: Int) -> ReadLine {
        var box = self.box.clamped(width: width, height: height)
        if box.width == 0 { box.x = max(0, min(box.x, width - 1)); box.width = 1 }
        if box.height == 0 { box.y = max(0, min(box.y, height - 1)); box.height = 1 }
        var line = ReadLine(text: text, confidence: confidence, box: box, textHeight: textHeight, quarterTurns: quarterTurns,
                            readingConfidence: readingConfidence, wordConfidences: wordConfidences)
        line.cutOut = cutOut
        return line
    }

    enum CodingKeys: String, CodingKey { case text, confidence, box, textHeight, quarterTurns }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(text: try c.decode(String.self, forKey: .text), confidence: try c.decode(Double.self, forKey: .confidence),
                  box: try c.decode(BoundingBox.self, forKey: .box), textHeight: try c.decode(Double.self, forKey: .textHeight),
                  quarterTurns: try c.decode(Int.self, forKey: .quarterTurns))
    }
}

/// Reads the text of regions: crops from the full-resolution photo, turns each crop upright,
/// scales it so the text is a size Tesseract reads well, and tries each plausible reading
/// direction, keeping every line read with confidence.
///
/// A region may hold more than one spine (their edge went unseen), and neighbouring spines
/// often read in opposite directions, so the direction is chosen per line, not per region: a
/// line read confidently one way is kept; what the other way makes of the same ink is dropped.
public struct RegionReader: Sendable {
    /// Target height of a text line, pixels (Tesseract's LSTM reads 20-40 px text best).
    public var targetTextHeight = Double(ProcessInfo.processInfo.environment["SHELFSCAN_TEXT_HEIGHT"] ?? "32") ?? 32
    /// Lines below this confidence are dropped (upside-down ink reads at 0-40).
    public var minimumConfidence = 50.0
    /// A region whose best line is below this confidence is read again with a local threshold.
    public var retryBelow = 75.0
    /// Words below this confidence are left out of their line (they are mostly spine edges,
    /// ornaments and pictures read as letters). Words under 40 are kept as unsure ones: they can
    /// name a book but hardly count against one that does not explain them (`BookMatcher.Spine`).
    /// Measured on the real shelves with the deadline off: 40 (everything under it dropped) found
    /// 211 of 615, 25 found 228 with no more books returned wrongly, and discounting the unsure
    /// words 233; 30, 20 and 15 found 226, 228 and 227.
    public var minimumWordConfidence = 25.0

    /// A second reading padded with the spine's gray where the first found no line at all
    /// (`SHELFSCAN_GRAY_RETRY=off` to compare).
    public var grayPaddingRetry = ProcessInfo.processInfo.environment["SHELFSCAN_GRAY_RETRY"] != "off"

    /// Pad spine crops with the spine's own gray instead of white (`spineGray`); `SHELFSCAN_PAD=spine`.
    /// Off by default: measured without the read deadline on 2026-11-24, it found 223 of 267
    /// SampleImages books instead of 213 but 201 of 615 real ones instead of 211, and the 12 MP
    /// benchmark shelf took 2.64 s with 43 books instead of 1.97 s with 46.
    public var spineGrayPadding = ProcessInfo.processInfo.environment["SHELFSCAN_PAD"] == "spine"

    /// Milliseconds one reading of a spine may take (a typical one takes 30-120 ms; pictures
    /// read as many lines of noise take seconds and yield nothing). Covers are not limited.
    public var readDeadline: Int? = Int(ProcessInfo.processInfo.environment["SHELFSCAN_READ_DEADLINE_MS"] ?? "") ?? 400

    /// Stretch dim spines' grays before reading (`dimRange`; `SHELFSCAN_STRETCH=off` to compare).
    public var stretchContrast = ProcessInfo.processInfo.environment["SHELFSCAN_STRETCH"] != "off"

    /// A last reading through an unsharp mask for spines where letters were seen but nothing was
    /// read confidently (`SHELFSCAN_SHARPEN=off` to compare).
    public var sharpenedRetry = ProcessInfo.processInfo.environment["SHELFSCAN_SHARPEN"] != "off"
    /// A second local-threshold reading, with a narrower window, for spines the first read
    /// nothing on though letters were seen on them (`Thresholding.fineLocal`;
    /// `SHELFSCAN_FINE_LOCAL=off` to compare).
    public var fineLocalRetry = ProcessInfo.processInfo.environment["SHELFSCAN_FINE_LOCAL"] != "off"
    /// Crops turned gray by each pixel's darkest channel instead of luminance (`PixImage.darkestChannel`).
    public var darkestChannel = false
    /// The region's crop turned gray along its main axis of hue (`PixImage.chromaAxis`), read
    /// instead of its luminance: set by `readChroma`, which computed it to test its spread.
    var hueCrop: PixImage?
    /// The image's recognition budget: once spent, only first readings run (`ReadBudget`).
    public var budget: ReadBudget?
    /// The crops `prepare` made (shared by copies of this reader).
    let crops = PreparedCrops()

    public init() {}

    /// The lines read in `region` of `image`.
    /// `votes` (shared by the regions of one photo) learns which way this photo's spines read,
    /// so that a thin spine read confidently the usual way need not be read the other way too.
    /// `all`: every line read, not only the best of lines read both ways over the same ink
    /// (for the caller to choose once the photo's usual direction is known).
    /// `mayBeBlank`: false when letters are known to be on the spine (an earlier reading's), so
    /// a crop read as nothing is retried every way all the same.
    /// `first`: the region's first reading, run whatever the budget (its retries are not).
    /// `hedges`: the photo's hedge regions' state (`TextRegion.hedge`).
    /// `turns`: the directions read, every retry included (the region's own two by default).
    public func read(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                     votes: DirectionVotes? = nil, all: Bool = false, mayBeBlank: Bool = true, first: Bool = false,
                     hedges: HedgeWatch? = nil, letterless: LetterlessRegions? = nil,
                     turns only: [Int]? = nil) throws(ShelfScanError) -> [ReadLine] {
        let p = try prepare(region, in: image)
        let single = Self.isSingle(region)
        var turns = only ?? region.quarterTurns
        // The way the spine's own letters stand, where they say (mixed-case lines), goes first
        // and takes the retries below; the photo's usual direction otherwise.
        let (guess, letters) = try baselineGuess(p, region: region)
        votes?.note(guess, for: region)
        // Not one shape of a letter's size and form on the crop, dark or light: the bookcase's
        // side, a gap, a plain box, an ornament. Nothing is read (`letterless` learns it, for
        // the retries to leave it too). Real shelves: of 175 such regions none named a book
        // after every reading and retry, at 3% of the readings' time; on the 12 MP shelf they
        // were 7 of 72 regions and 0.9 s of its recognition.
        if let letterless, mayBeBlank, letters == 0, Self.skipLetterless {
            letterless.add(region)
            if Self.traceReads { FileHandle.standardError.write(Data("LETTERLESS r\(region.row)-\(region.index)\n".utf8)) }
            return []
        }
        if let first = guess ?? votes?.preferred(among: turns) { turns.sort { a, _ in a == first } }
        // Letters on the spine read too badly to keep a line: the directions they were read in,
        // in the first readings (`spoilt`); in any reading (`dropped`).
        var spoilt = Set<Int>()
        var dropped = false
        // Lines Tesseract found at all, however badly read.
        var found = 0
        var firstBest = 0.0
        var lines = try read(p.sized, turns: turns, single: single || (guess != nil && Self.baselineStop), region: region, factor: p.factor,
                             offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: .global,
                             essential: first, onDroppedLine: { spoilt.insert($0); dropped = true },
                             onPage: { found += $0; firstBest = max(firstBest, $1) })
        // A confident line on the spine itself (a neighbour's sliver does not count).
        func onSpine() -> Bool { !sureLines(lines, on: region).isEmpty }
        // The photo's usual direction alone once it has one (most spines read one way), asked
        // when a retry starts: the other workers' spines keep voting meanwhile, so it may have
        // none yet when the reading began, or another one. (Until the forty-first session
        // the way tried first was taken, the region's first way when nothing was preferred
        // then: a spine read before the photo's first sure line had its retries read bottom to
        // top on a shelf read top to bottom; `SHELFSCAN_RETRY_TURNS=first` for measuring.)
        func usualTurns() -> [Int] { Self.retryTurns(turns, guess: guess, usual: votes?.preferred(among: turns)) }
        // What the reading returns: the best of the lines (every line when `all`), the sure ones voting.
        func finished() -> [ReadLine] {
            let kept = Self.keepBest(lines).map { $0.inside(width: image.width, height: image.height) }
            for line in kept where line.confidence >= 80 { votes?.add(line.quarterTurns) }
            return all ? lines.map { $0.inside(width: image.width, height: image.height) } : kept
        }
        // Lines found, but none kept anywhere in the crop and none read even at `blankConfidence`,
        // either way: most often no text at all (the bookcase's side, an empty stretch of shelf,
        // a plain box), where the band, ink, local and sharpened retries below cost five or six
        // recognitions for nothing. Such a crop is read once more with a local threshold only
        // (the retry that read the one real spine among them: a glossy Stephen King, "THE EYES
        // OF THE DRAGON", read at 10 and 2, then at 43). Real shelves, deadline off: 404 / 426 /
        // 22 found / returned / wrong -> 403 / 425 / 22 (Heroes and Villains, which comes and
        // goes), CPU -7%; the 12 MP shelf -140 ms. Without the local reading -250 ms there, but
        // 403 / 425 with two books lost for one gained, the same two in two runs; at 45, 398 / 418.
        // Where no line was found at all the retries stay: wanda1's dark spines read only after
        // them (the gate there lost 6 books of its 7).
        // A hedge (the photo's losing orientation) is read once, unless that found a sure line
        // or a hedge of the photo has held a book's word already (`HedgeWatch`).
        if region.hedge {
            if confirms(lines, on: region) {
                hedges?.hold(row: region.row)
            } else if !onSpine(), hedges?.readOnce(region) ?? true {
                return finished()
            }
        }
        if mayBeBlank, let least = Self.blankConfidence, region.layout != .cover, lines.isEmpty, found > 0, firstBest < least {
            if Self.traceReads { FileHandle.standardError.write(Data("BLANK r\(region.row)-\(region.index) best \(Int(firstBest))\n".utf8)) }
            lines = try read(p.sized, turns: usualTurns(), single: single, region: region, factor: p.factor,
                             offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: .local)
            return finished()
        }
        // Nothing confident on the spine: its neighbours' slivers may have spoilt the reading (a
        // mid-gray spine between a black gap and a light neighbour: Tesseract reads the
        // neighbour's line and nothing of the spine). Read the spine's band alone (SampleImages
        // 201 to 212 of 267 books, real shelves 181 to 198 of 615, both with the deadline off);
        // then, if still nothing, the whole crop with a local threshold (glare, shade).
        // The same when a line on the spine was read too badly to keep beside a good one
        // (PERSUASION under a sliver of the book above it, JANE AUSTEN below read well): the band
        // is cut to the pixel, and only lines that add letters to the first reading's are kept.
        // No line found at all: the white padding set against a mid-gray spine and its dark
        // edges may have made one blob of it all for Tesseract's layout analysis ("THE SAINT IN
        // TROUBLE", legible at 25 px, read as nothing). The crop is read again padded with the
        // spine's own gray.
        if grayPaddingRetry, found == 0, region.layout != .cover, p.background == 255,
           let gray = try Self.spineGray(p.upright ?? p.sized, region: region, offset: region.layout == .spine ? p.offsetX : p.offsetY),
           gray < 235 {
            lines += try read(p.sized, turns: turns, single: single, region: region, factor: p.factor,
                              offset: (p.offsetX, p.offsetY), background: UInt32(gray), engine: engine, thresholding: .global,
                              tag: "-gray", onDroppedLine: { spoilt.insert($0); dropped = true })
        }
        let clean = onSpine()
        // Read well, the band is read again here only the way a sure line was read, when a line
        // was read too badly that way. The other way (where the same ink read upside down is
        // dropped too) waits until the photo is matched, for spines that named no book then
        // (`readBand`): reading it on every spine took a sixth of the 12 MP shelf's reading
        // time, mostly for spines read well already.
        let sureTurns = Set(sureLines(lines, on: region).map(\.quarterTurns))
        let bandTurns = clean ? turns.filter { spoilt.contains($0) && (Self.anySpoilt || sureTurns.contains($0)) } : turns
        if !bandTurns.isEmpty, let band = try bandCrop(p, region: region, margin: clean ? 1 : nil) {
            // Only the spine's own lines: the margin cuts the neighbours' lines short, and a cut
            // line read more confidently would replace the whole one read before.
            let before = lines
            lines += try read(band.image, turns: bandTurns, single: true, region: region, factor: p.factor,
                              offset: band.offset, background: band.background, engine: engine, thresholding: .global, tag: "-band",
                              onDroppedLine: { _ in dropped = true })
                .filter { line in region.holds(line.box) && (!clean || !before.contains { line.addsNothing(to: $0) }) }
        }
        // Still nothing: the crop may run past the book's end (a short book in a tall row, a
        // stack's shorter books): read the spine from the first ink to the last alone (with the
        // deadline off: SampleImages 218 to 221 of 267, real shelves 238 to 239, same time).
        if !onSpine(), let trimmed = try inkCrop(p, region: region) {
            lines += try read(trimmed.image, turns: turns, single: true, region: region, factor: p.factor,
                              offset: trimmed.offset, background: trimmed.background, engine: engine, thresholding: .global, tag: "-ink",
                              onDroppedLine: { _ in dropped = true })
                .filter { region.holds($0.box) }
        }
        // Then the whole crop with a local threshold (glare, shade), in the photo's usual
        // direction only once it has one, as the sharpened reading below.
        if Self.localRetry != "off", !onSpine() {
            lines += try read(p.sized, turns: Self.localRetry == "both" ? turns : usualTurns(), single: single, region: region, factor: p.factor,
                              offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: .local,
                              onDroppedLine: { _ in dropped = true })
        }
        // Still nothing, though letters were seen and dropped on the spine: the same with a window
        // under half as wide (`Thresholding.fineLocal`). The two windows read different spines.
        // Real shelves, deadline off, found / returned / wrong: Tesseract's window alone 408 / 427
        // / 19; 45 px alone 416 / 440 / 24 (13 books in, 5 out); 45 px then Tesseract's where it
        // read nothing, 416 / 440 / 24 too; Tesseract's then 45 px on every spine still read as
        // nothing, 421 / 442 / 21 with no book lost, but +300 ms on the 12 MP shelf (17 more
        // recognitions, none of them of use there). Only where letters were dropped (as the
        // sharpened retry below): 420 / 440 / 20 with the tie rule (`MatchAssignment.refusingTies`),
        // *Around the World in 80 Days* lost, 10 recognitions on the 12 MP shelf. Only where a
        // line was also kept on the spine: 413, *Colour Blind*, *Automania* and five more lost.
        // On every unread spine but not in the second model's reading: 417 against 421.
        if fineLocalRetry, !onSpine(), dropped || Self.fineEverywhere {
            lines += try read(p.sized, turns: usualTurns(), single: single, region: region, factor: p.factor,
                              offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: .fineLocal,
                              onDroppedLine: { _ in dropped = true })
        }
        // Still nothing, though letters were seen on the spine: blur may have run them together.
        // Read the crop once more through an unsharp mask, as a last resort only (read first,
        // sharpened crops read worse). Real shelves, deadline off: 268 to 279 of 615 found, 285 to
        // 299 returned, total time +13% (both directions: +25%; without the letters-seen
        // condition +28%); SampleImages 229 to 232 of 267; the 12 MP shelf 2.45 to 2.67 s.
        if sharpenedRetry, !onSpine(), dropped || lines.contains(where: { region.holds($0.box) }) {
            lines += try read(try p.sized.sharpened(halfWidth: 2, fraction: 0.7), turns: usualTurns(), single: single, region: region,
                              factor: p.factor, offset: (p.offsetX, p.offsetY), background: p.background, engine: engine,
                              thresholding: .global, tag: "-sharp")
        }
        return finished()
    }

    /// A spine's small letters, read apart from the big ones beside them: a paperback's author
    /// printed big, its title a third as tall (BALDACCI, then "Memory Man"). Tesseract reads a
    /// line by its tallest letters and the small ones come out as junk ("senanen"). When the
    /// letters measured on the crop come in two sizes (the upper quartile at least `mixedSizes`
    /// times the lower, of `minimumLetters` or more), a line of `lines` (what was read already)
    /// was read surely and none is of the small size, the crop is scaled so the small letters
    /// are `smallLetterHeight` pixels tall and read as sparse text, each word sized on its own,
    /// in the sure line's direction. Empty otherwise.
    public func readSmallLetters(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                                 besides lines: [ReadLine]) throws(ShelfScanError) -> [ReadLine] {
        // Only beside big letters read surely (an author's name), and the way they read: spines
        // where nothing was read are mostly gaps, pictures and blur, and cost the most to read.
        guard region.layout != .cover,
              let sure = sureLines(lines, on: region).max(by: { $0.confidence < $1.confidence })
        else { return [] }
        let p = try prepare(region, in: image)
        guard let upright = p.upright,
              let sizes = try Self.letterSizes(in: p.sized, standing: region.layout == .spine),
              sizes.count >= Self.minimumLetters else { return [] }
        let small = sizes[sizes.count / 4], large = sizes[sizes.count * 3 / 4]
        let smallInPhoto = small / p.factor
        guard large >= Self.mixedSizes * small,
              !lines.contains(where: { region.holds($0.box) && $0.textHeight <= 1.6 * smallInPhoto }) else { return [] }
        let factor = min(Self.maximumScale, p.factor * Self.smallLetterHeight / small, p.factor * 2.5)
        guard factor > p.factor * 1.3 else { return [] }
        return try readAgain(upright, scaledBy: factor, p, turns: [sure.quarterTurns], region: region, in: image, engine: engine,
                             tag: "-small", page: .sparse)
            // Sparse text reads lone syllables off pictures and ornaments ("IT", "WE", which
            // are titles too): a line of its own needs a word's worth of letters.
            .filter { $0.text.filter(\.isLetter).count >= Self.smallLineLetters }
    }

    /// `upright` (the prepared crop before scaling) read once more scaled by `factor`, in
    /// `turns` (one direction unless the region may hold several spines, `single` false): the
    /// lines on the spine, placed in the photo.
    private func readAgain(_ upright: PixImage, scaledBy factor: Double, _ p: Prepared, turns: [Int], single: Bool = true,
                           region: TextRegion, in image: PixImage, engine: TesseractEngine, thresholding: Thresholding = .global,
                           tag: String, page: PageLayout? = nil) throws(ShelfScanError) -> [ReadLine] {
        try read(try upright.scaled(by: factor), turns: turns, single: single, region: region, factor: factor,
                 offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: thresholding,
                 tag: tag, page: page)
            .filter { region.holds($0.box) }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// True when a line of `lines` read surely on the region's spine holds a word of four
    /// letters or more: a book's words, not a stripe or an edge read as "Ti" or "pe".
    func confirms(_ lines: [ReadLine], on region: TextRegion) -> Bool {
        sureLines(lines, on: region).contains { line in
            line.text.split(separator: " ").contains { $0.filter(\.isLetter).count >= 4 }
        }
    }

    /// The lines of `lines` read surely (at `retryBelow` or more) on the region's own spine (a
    /// neighbour's sliver does not count).
    func sureLines(_ lines: [ReadLine], on region: TextRegion) -> [ReadLine] {
        lines.filter { $0.confidence >= retryBelow && region.holds($0.box) }
    }

    /// A spine that named no book read again turned `delta` degrees more than its lean (the
    /// edges' lean is known to a degree: over a long thin spine, a degree puts the ends of its
    /// text onto the neighbours), its band alone where it has one, in `turns`.
    public func readLeaned(_ region: TextRegion, in image: PixImage, engine: TesseractEngine, delta: Double,
                           turns: [Int]) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover else { return [] }
        let tilted = region.reshaped(lean: region.lean + delta)
        let p = try prepare(tilted, in: image, leastTurn: Self.leanedLeastTurn)
        let crop = try bandCrop(p, region: tilted) ?? (p.sized, (p.offsetX, p.offsetY), p.background)
        return try read(crop.image, turns: turns, single: true, region: tilted, factor: p.factor,
                        offset: crop.offset, background: crop.background, engine: engine, thresholding: .global,
                        tag: "-leaned\(delta)")
            .filter { region.holds($0.box) }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// The region's crop widened across by `widen` of its thickness on each side, read once in
    /// `turns`: an edge found through the spine's label (a busy cover's art makes edges where
    /// there are none) cuts its title in two lengthwise, and neither half reads ("THE LAST
    /// CONTINENT" on a Discworld spine, its region's edge through the label, read as "THELAST";
    /// widened, whole). The lines whose middle lies on the spine's band, widened as much, are kept.
    public func readWidened(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                            turns: [Int]) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover else { return [] }
        let standing = region.layout == .spine
        let b = region.box
        let grow = Int((Double(standing ? b.width : b.height) * Self.widen).rounded())
        let box = standing
            ? BoundingBox(x: max(0, b.x - grow), y: b.y, width: min(image.width, b.x + b.width + grow) - max(0, b.x - grow), height: b.height)
            : BoundingBox(x: b.x, y: max(0, b.y - grow), width: b.width, height: min(image.height, b.y + b.height + grow) - max(0, b.y - grow))
        let wide = region.reshaped(box: box, grow: Double(grow))
        let p = try prepare(wide, in: image)
        return try read(p.sized, turns: turns, single: false, region: wide, factor: p.factor,
                        offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: .global, tag: "-wide")
            .filter { wide.holds($0.box) }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// How much `readWidened` widens a crop on each side, in its thickness (`SHELFSCAN_WIDEN`).
    static let widen = Double(ProcessInfo.processInfo.environment["SHELFSCAN_WIDEN"] ?? "") ?? 0.35

    /// A spine with a sure line on it that named no book: its band read alone, both ways. Most
    /// such spines were not read alone at first (`read`), and capitals read upside down are often
    /// letters too ("KINGS OF" as "40 SONIG" at 90): the sure line may be the wrong way's. The
    /// lines that add letters to `lines`; where both ways read the same ink, the caller keeps
    /// the surer reading (`keepBest`).
    public func readBand(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                         besides lines: [ReadLine]) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover, !sureLines(lines, on: region).isEmpty else { return [] }
        let p = try prepare(region, in: image)
        guard let band = try bandCrop(p, region: region, margin: 1) else { return [] }
        return try read(band.image, turns: region.quarterTurns, single: true, region: region, factor: p.factor,
                        offset: band.offset, background: band.background, engine: engine, thresholding: .global, tag: "-band")
            .filter { line in region.holds(line.box) && !lines.contains { line.addsNothing(to: $0) } }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// A spine that named no book read as sparse text, in `turns`: a picture on the spine (the
    /// author's face beside the title) spoils a block reading, where Tesseract takes the picture
    /// for lines of text; sparse text finds the words beside it ("DIFFERENT SEASONS", read as
    /// nothing in block mode). Lines of fewer than `sparseLineLetters` letters are dropped: sparse
    /// text reads lone syllables off pictures and ornaments. `resolution`: what Tesseract is told
    /// (see `sparseResolution`).
    public func readSparse(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                           turns: [Int], resolution: Int = sparseResolution) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover else { return [] }
        let p = try prepare(region, in: image)
        return try read(p.sized, turns: turns, single: true, region: region, factor: p.factor,
                        offset: (p.offsetX, p.offsetY), background: p.background, engine: engine, thresholding: .global,
                        tag: "-sparse", page: .sparse, resolution: resolution)
            .filter { region.holds($0.box) && $0.text.filter(\.isLetter).count >= Self.sparseLineLetters }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// Which way up the spine's letters stand (`LetterBaseline`), measured on a copy of the
    /// crop at half the reading size (letters about 16 px: enough to see where they line up);
    /// nil where they do not say, for covers, and with `SHELFSCAN_BASELINE=off`.
    ///
    /// Where it speaks, the spine is read that way first, a line of 85 or more read that way
    /// spares the other way even on a region wider than one spine (`isSingle`: the letters'
    /// way is known for the whole region), and its local-threshold, narrow-window and
    /// sharpened retries go that way instead of the photo's usual one
    /// (`SHELFSCAN_BASELINE=order`: the order and the retries only).
    /// `letters`: how many letters were seen on the half-size copy (nil when not looked, or
    /// too many shapes to be text).
    func baselineGuess(_ p: Prepared, region: TextRegion) throws(ShelfScanError) -> (turns: Int?, letters: Int?) {
        guard Self.baselineGuessing, region.layout != .cover else { return (nil, nil) }
        let half = try p.sized.scaled(by: 0.5)
        let standing = region.layout == .spine
        guard let letters = try Self.letterBoxes(in: half, standing: standing) else { return (nil, nil) }
        let guess = LetterBaseline.upright(letters, standing: standing)
        if Self.traceReads {
            FileHandle.standardError.write(Data("GUESS r\(region.row)-\(region.index) \(guess.map { "q\($0)" } ?? "none") letters \(letters.count)\n".utf8))
        }
        return (guess, letters.count)
    }

    /// `SHELFSCAN_LETTERLESS=read`: regions showing no letter are read all the same (for measuring).
    static let skipLetterless = ProcessInfo.processInfo.environment["SHELFSCAN_LETTERLESS"] != "read"

    static let baselineGuessing = ProcessInfo.processInfo.environment["SHELFSCAN_BASELINE"] != "off"
    static let baselineStop = ProcessInfo.processInfo.environment["SHELFSCAN_BASELINE"] != "order"

    /// `SHELFSCAN_RETRY_TURNS=first`: a retry in "the usual direction" takes the way the
    /// reading tried first (for measuring; see `read`).
    static let retryTurnsFirst = ProcessInfo.processInfo.environment["SHELFSCAN_RETRY_TURNS"] == "first"

    /// The ways a retry of `read` reads, of `turns` (the reading's, in the order tried): the way
    /// the region's letters stand (`guess`) where it is one of them; else the photo's `usual`
    /// direction now, alone; else all of them.
    static func retryTurns(_ turns: [Int], guess: Int?, usual: Int?) -> [Int] {
        let ways = DirectionVotes.oneWay(of: turns, guess: guess, usual: usual)
        let byUsual = ways.count == 1 && ways[0] != guess
        return retryTurnsFirst && byUsual ? Array(turns.prefix(1)) : ways
    }

    /// Whether `region` holds one spine (not several whose edges went unseen): it can only read
    /// one way.
    static func isSingle(_ region: TextRegion) -> Bool {
        let across = region.layout == .lyingSpine ? Double(region.box.height) : Double(region.box.width)
        return region.layout != .cover && across <= region.typicalThickness * 1.4
    }

    /// The region's crop read once, as the first reading does, in `turns` (no retries);
    /// `transform` turns the scaled crop into the picture read, on a white ground.
    public func readOnce(_ region: TextRegion, in image: PixImage, engine: TesseractEngine, turns: [Int], tag: String,
                         thresholding: Thresholding = .global, page: PageLayout? = nil,
                         transform: ((PixImage) throws(ShelfScanError) -> PixImage)? = nil) throws(ShelfScanError) -> [ReadLine] {
        let p = try prepare(region, in: image)
        let picture = try transform.map { t throws(ShelfScanError) in try t(p.sized) } ?? p.sized
        return try read(picture, turns: turns, single: Self.isSingle(region), region: region, factor: p.factor,
                        offset: (p.offsetX, p.offsetY), background: transform == nil ? p.background : 255, engine: engine,
                        thresholding: thresholding, tag: tag, page: page)
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// The region's crop read once as one block of text (`PageLayout.block`), each pixel against
    /// its own surroundings (`Thresholding.local`): a cover's second reading, where Tesseract's
    /// page analysis took a big title for a picture and one threshold merged it with its ground.
    public func readBlockLocally(_ region: TextRegion, in image: PixImage, engine: TesseractEngine, tag: String) throws(ShelfScanError) -> [ReadLine] {
        try readOnce(region, in: image, engine: engine, turns: region.quarterTurns, tag: tag, thresholding: .local, page: .block)
    }

    /// The region's crop read once in `turns` as each pixel's distance from its ground's gray
    /// (`PixImage.distanceFromGround`), dark on white: letters lighter and darker than the spine
    /// read alike, where Tesseract's one threshold keeps one kind and loses the other (an orange
    /// Penguin's title in white beside its author's name in black). The ground is the median over
    /// `groundWindow` times the text height the crop is scaled for.
    public func readDistance(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                             turns: [Int]) throws(ShelfScanError) -> [ReadLine] {
        let window = Int(targetTextHeight * Self.groundWindow)
        return try readOnce(region, in: image, engine: engine, turns: turns, tag: "-distance") { sized throws(ShelfScanError) in
            try sized.distanceFromGround(window: window)
        }
    }

    /// The region's crop read once in `turns` along its main axis of hue, dark on light
    /// (`PixImage.chromaAxis`): a title set apart from its spine by colour, not brightness (red
    /// on dark green, dark red on red), is one gray by luminance and in every channel. Only
    /// crops whose hues spread `chromaSpread` or more (not gray, black or white spines).
    public func readChroma(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                           turns: [Int]) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover, let hue = try image.cropped(to: region.box).chromaAxis(minimumSpread: Self.chromaSpread) else { return [] }
        var reader = self
        reader.hueCrop = hue
        reader.stretchContrast = false
        return try reader.readOnce(region, in: image, engine: engine, turns: turns, tag: "-chroma")
    }

    /// The least spread of hues (1st to 99th percentile along their main axis, 0-361) a crop is
    /// read by hue from (`readChroma`; `SHELFSCAN_CHROMA_SPREAD`): gray, black and white spines
    /// spread 10-20, coloured ones 60-180.
    static let chromaSpread = Double(ProcessInfo.processInfo.environment["SHELFSCAN_CHROMA_SPREAD"] ?? "") ?? 40

    /// The ground's window in `readDistance`, in text heights (`SHELFSCAN_GROUND_WINDOW`).
    static let groundWindow = Double(ProcessInfo.processInfo.environment["SHELFSCAN_GROUND_WINDOW"] ?? "") ?? 2

    /// The resolution sparse readings state (`TesseractEngine.recognize`): 70, the least
    /// Tesseract believes, from which it estimates the resolution from the letters' size, as its
    /// command line does for an image that states none. Sparse text goes through Tesseract's
    /// page layout analysis, which the resolution steers: told 300, as every other reading is,
    /// it read nothing of a crisp FIRESTARTER beside the author's face on a Stephen King
    /// paperback; estimating it (263 there), it read the title.
    /// `SHELFSCAN_SPARSE_DPI=N` for measuring.
    public static let sparseResolution = Int(ProcessInfo.processInfo.environment["SHELFSCAN_SPARSE_DPI"] ?? "") ?? 70

    static let sparseLineLetters = Int(ProcessInfo.processInfo.environment["SHELFSCAN_SPARSE_LETTERS"] ?? "5") ?? 5

    /// A spine that named no book though a line on it was read surely, read again scaled by
    /// `factor` in that line's direction: which scale reads a spine best varies from spine to
    /// spine (the title may be far larger or smaller than the thickness suggests).
    public func readRescaled(_ region: TextRegion, in image: PixImage, engine: TesseractEngine, factor scale: Double,
                             besides lines: [ReadLine]) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover,
              let sure = sureLines(lines, on: region).max(by: { $0.confidence < $1.confidence })
        else { return [] }
        let p = try prepare(region, in: image)
        guard let upright = p.upright else { return [] }
        let factor = min(Self.maximumScale, p.factor * scale)
        guard abs(factor / p.factor - 1) > 0.2 else { return [] }
        return try readAgain(upright, scaledBy: factor, p, turns: [sure.quarterTurns], region: region, in: image, engine: engine,
                             tag: "-rescaled")
    }

    /// A spine that named no book, read again scaled so its letters stand `sizedHeight` pixels
    /// tall: the first reading's scale comes from the spine's thickness, and a spine whose text
    /// is a far smaller part of it (a hardback lying in a stack, a photo of a whole bookcase)
    /// was read with letters of 8-12 pixels, too small for Tesseract. The letters' size is
    /// measured on the crop as first scaled (`letterSizes`, `letterSize`); read only when that scale would
    /// grow them by `sizedGain` or more (within `maximumScale`), in the sure line's direction,
    /// else in `turns`.
    ///
    /// Not where the crop so scaled would exceed `maximumPixels` (`sizedMaximumPixels`): those are
    /// wide windows over several spines or a bookcase's side (chris1's 400-900 px windows scaled
    /// to 2600x1300-3600x1700, each reading cut off at the 400 ms deadline with nothing named).
    public func readLetterSized(_ region: TextRegion, in image: PixImage, engine: TesseractEngine, turns: [Int],
                                besides lines: [ReadLine], maximumPixels: Double = sizedMaximumPixels) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover else { return [] }
        let p = try prepare(region, in: image)
        let standing = region.layout == .spine
        guard let upright = p.upright,
              let letters = try Self.letterBoxes(in: p.sized, standing: standing),
              let median = Self.letterSize(Self.sizes(of: letters, standing: standing)) else { return [] }
        // Letters that even `maximumScale` leaves short of the size are specks (a cloth
        // binding's grain, a picture) or too small to read: not read again.
        let factor = p.factor * Self.sizedHeight / median
        guard factor >= p.factor * Self.sizedGain, factor <= Self.maximumScale else { return [] }
        guard Double(upright.width * upright.height) * factor * factor <= maximumPixels else { return [] }
        // Nor where no `sizedLetters` letters stand in a row along the spine (`pieces`: a word,
        // a line): shapes scattered over a bookcase's side or a stretch of shelf are grain.
        guard !Self.sizedInRow || Self.holdsRow(letters, standing: standing) else { return [] }
        let sure = sureLines(lines, on: region).max(by: { $0.confidence < $1.confidence })
        return try readAgain(upright, scaledBy: factor, p, turns: sure.map { [$0.quarterTurns] } ?? turns, single: Self.isSingle(region),
                             region: region, in: image, engine: engine, thresholding: Self.sizedThresholding, tag: "-sized")
    }

    /// The most pixels a letter-sized reading's crop may have (`SHELFSCAN_SIZED_MAX_MP`, in
    /// megapixels; 1.5). Real shelves 463 / 479 as before in CI (462 / 478 in one eval, without
    /// bookshelf-3's *Puzzles & Teasers*, which comes and goes), the eval's CPU -2.3%; the real
    /// 12 MP photos chris1 15.5 -> 12.1 s, gardening 10.7 -> 8.7 s, crime1 7.2 -> 6.3 s, the same
    /// books.
    public static let sizedMaximumPixels = (Double(ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_MAX_MP"] ?? "") ?? 1.5) * 1_000_000

    /// The size of letters of one size among `sizes` (smallest first): their median, when
    /// `sizedLetters` of them or more lie within `sizedSpread` of it; nil for a few shapes of
    /// any size (a picture's blots, a rule's ends, specks beside one big shape).
    static func letterSize(_ sizes: [Double]) -> Double? {
        guard !sizes.isEmpty else { return nil }
        let median = sizes[sizes.count / 2]
        let alike = sizes.filter { $0 * sizedSpread >= median && $0 <= median * sizedSpread }.count
        return alike >= sizedLetters ? median : nil
    }

    /// Letters `readLetterSized` is scaled for (pixels), the growth it needs at least, the
    /// threshold it reads with (Sauvola's narrow window: a light title on a dark book in a stack
    /// of lighter ones), and the letters it needs measured (`SHELFSCAN_SIZED_HEIGHT`, `_GAIN`,
    /// `_THRESH=global|local`, `_LETTERS`, for measuring).
    static let sizedHeight = Double(ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_HEIGHT"] ?? "") ?? 30
    static let sizedGain = Double(ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_GAIN"] ?? "") ?? 1.5
    static let sizedThresholding: Thresholding = switch ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_THRESH"] {
    case "local": .local
    case "global": .global
    default: .fineLocal
    }
    static let sizedLetters = Int(ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_LETTERS"] ?? "") ?? 4
    /// `SHELFSCAN_SIZED_ROW=off`: letters of one size read at their size though none stand in a
    /// row of `sizedLetters` along the spine (for measuring).
    static let sizedInRow = ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_ROW"] != "off"
    /// Letters within this factor of the median are of its size (`SHELFSCAN_SIZED_SPREAD`).
    static let sizedSpread = Double(ProcessInfo.processInfo.environment["SHELFSCAN_SIZED_SPREAD"] ?? "") ?? 1.5

    /// Letters this many times taller than others on one spine are of another line of text.
    static let mixedSizes = 1.8
    /// Fewer letters than this say nothing of their sizes.
    static let minimumLetters = 8
    /// Letters a line read for `readSmallLetters` needs.
    static let smallLineLetters = 4
    /// Height small letters are scaled to for `readSmallLetters`, pixels.
    static let smallLetterHeight = 30.0

    /// The sizes of the letters in `image` across the text (their height as read: across the
    /// spine for a standing one), pixels, smallest first; nil when there are too many shapes to
    /// be text. Letters are the connected shapes of a Sauvola binarisation, dark on light and
    /// light on dark, neither tiny nor long (edges, rules), nor cut by the crop's sides; a
    /// shape inside one of the other shade's letters is that letter's counter (the hole of an
    /// "A") and does not count.
    static func letterSizes(in image: PixImage, standing: Bool) throws(ShelfScanError) -> [Double]? {
        try letterBoxes(in: image, standing: standing).map { sizes(of: $0, standing: standing) }
    }

    /// The sizes of `letters` across the text (`letterSizes`), smallest first.
    static func sizes(of letters: [BoundingBox], standing: Bool) -> [Double] {
        letters.map { Double(standing ? $0.width : $0.height) }.sorted()
    }

    /// The letters `letterSizes` measures, as boxes in `image`; nil when there are too many
    /// shapes to be text. Kept with the image: the small-letter, pieces and letter-sized passes
    /// measure the same kept crop (`PixImage.remembered`).
    static func letterBoxes(in image: PixImage, standing: Bool) throws(ShelfScanError) -> [BoundingBox]? {
        try image.remembered("letterBoxes \(standing)") { () throws(ShelfScanError) in try measuredLetterBoxes(in: image, standing: standing) }
    }

    private static func measuredLetterBoxes(in image: PixImage, standing: Bool) throws(ShelfScanError) -> [BoundingBox]? {
        let across = standing ? image.width : image.height
        guard across >= 16, image.width >= 8, image.height >= 8 else { return nil }
        let window = max(8, across / 4)
        func letters(_ shapes: [BoundingBox]) -> [BoundingBox] {
            shapes.filter { b in
                let height = standing ? b.width : b.height, width = standing ? b.height : b.width
                return height >= 6 && Double(height) <= 0.8 * Double(across) && width >= 2 && width <= 4 * height
                    && b.x > 0 && b.y > 0 && b.x + b.width < image.width && b.y + b.height < image.height
            }
        }
        let shapes = try image.darkAndLightShapes(halfWindow: window)
        let dark = letters(shapes.dark)
        let light = letters(shapes.light)
        guard dark.count + light.count < 2000 else { return nil }
        func inside(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
            a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height
        }
        return dark.filter { d in !light.contains { inside(d, $0) } } + light.filter { l in !dark.contains { inside(l, $0) } }
    }

    /// A stretch of a spine's text along its length whose letters are of one size (an author's
    /// name, a title, a publisher's line), in the crop's pixels.
    struct Piece: Equatable {
        /// Where it lies along the spine.
        var along: Range<Int>
        /// Its letters' median height (across the spine for a standing one; for pieces joined
        /// again, their medians' mean weighted by their letters).
        var size: Double
        var letters: Int
    }

    /// The spine's letters (`letterBoxes`) gathered into pieces along its length: a letter
    /// starts a new piece after a gap longer than `pieceGap` times the smaller of its height
    /// and the piece's, or when its height is `mixedSizes` times the piece's median or a
    /// fraction of it (unless the two overlap along the spine by half the smaller height).
    /// Pieces of fewer than `pieceLetters` letters (specks, a logo) are left out, and
    /// neighbouring pieces of one size (within `samePieceSize`) joined again. Measured on the
    /// real shelves (deadline off): a new piece only where a letter differs from each of the
    /// piece's last six letters instead of its median found 378 books instead of 383; a gap of
    /// 0.8 letter heights 383, of 2.0 377; sizes 1.5 times apart instead of 1.8 383 with two
    /// more returned wrongly; each piece read as one line instead of a block, 378.
    static func pieces(of letters: [BoundingBox], standing: Bool) -> [Piece] {
        func span(_ b: BoundingBox) -> Range<Int> { standing ? b.y..<(b.y + b.height) : b.x..<(b.x + b.width) }
        func height(_ b: BoundingBox) -> Double { Double(standing ? b.width : b.height) }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        var groups: [(along: Range<Int>, sizes: [Double])] = []
        for letter in letters.sorted(by: { span($0).lowerBound < span($1).lowerBound }) {
            let s = span(letter), h = height(letter)
            if var last = groups.last {
                let size = median(last.sizes)
                let gap = Double(s.lowerBound - last.along.upperBound)
                let mixed = h >= mixedSizes * size || size >= mixedSizes * h
                // Letters of two sizes side by side across the spine (a title over its
                // subtitle) overlap along it: no cut along the spine parts them.
                if gap <= pieceGap * min(size, h), !mixed || gap < -0.5 * min(size, h) {
                    last.along = last.along.lowerBound..<max(last.along.upperBound, s.upperBound)
                    last.sizes.append(h)
                    groups[groups.count - 1] = last
                    continue
                }
            }
            groups.append((s, [h]))
        }
        var pieces = groups.filter { $0.sizes.count >= pieceLetters }
            .map { Piece(along: $0.along, size: median($0.sizes), letters: $0.sizes.count) }
        var i = 1
        while i < pieces.count {
            let a = pieces[i - 1], b = pieces[i]
            if max(a.size, b.size) <= samePieceSize * min(a.size, b.size) {
                pieces[i - 1] = Piece(along: a.along.lowerBound..<max(a.along.upperBound, b.along.upperBound),
                                      size: (a.size * Double(a.letters) + b.size * Double(b.letters)) / Double(a.letters + b.letters),
                                      letters: a.letters + b.letters)
                pieces.remove(at: i)
            } else {
                i += 1
            }
        }
        return pieces
    }

    /// Whether `sizedLetters` or more of `letters` stand in a row along the spine (a piece, see
    /// `pieces`): a word or a line, not shapes scattered over a bookcase's side or a shelf.
    static func holdsRow(_ letters: [BoundingBox], standing: Bool) -> Bool {
        pieces(of: letters, standing: standing).contains { $0.letters >= sizedLetters }
    }

    /// A gap along the spine longer than this many letter heights ends a piece.
    static let pieceGap = Double(ProcessInfo.processInfo.environment["SHELFSCAN_PIECE_GAP"] ?? "1.2") ?? 1.2
    /// Neighbouring pieces whose letters differ less than this in height are one piece.
    static let samePieceSize = 1.4
    /// A piece has at least this many letters.
    static let pieceLetters = 3
    /// At most this many pieces of one spine are read (the ones with the most letters).
    static let mostPieces = 4

    /// A spine whose text comes in pieces of different sizes along it (an author's name in
    /// big capitals, the title a third as tall beside it: BALDACCI, then "The Last Mile"), each
    /// piece read alone, scaled so its letters are `targetTextHeight` high, in `turns`.
    /// Tesseract takes the pieces for one line and reads it at the size of its tallest letters:
    /// the small ones come out as junk or nothing, however sharp. Empty when the spine's letters
    /// are of one size.
    /// `tight`: where the letters are not of mixed sizes, their longest line read cut out alone instead.
    public func readPieces(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                           turns: [Int], tight: TightReading? = nil) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover else { return [] }
        let p = try prepare(region, in: image)
        let standing = region.layout == .spine
        guard let upright = p.upright,
              let letters = try Self.letterBoxes(in: p.sized, standing: standing), letters.count >= Self.minimumLetters
        else { return [] }
        let all = Self.pieces(of: letters, standing: standing)
        if Self.traceReads {
            // Each letter's box only when asked for: on a big photo they are most of the trace.
            let shown = !Self.traceLetters ? "\(letters.count)"
                : letters.map { standing ? "\($0.y)+\($0.height):\($0.width)" : "\($0.x)+\($0.width):\($0.height)" }.joined(separator: " ")
            FileHandle.standardError.write(Data("PIECES r\(region.row)-\(region.index) \(all.map { "\($0.along) size \(Int($0.size)) n \($0.letters)" }) letters \(shown)\n".utf8))
        }
        guard all.count >= 2, let big = all.map(\.size).max(), let small = all.map(\.size).min(),
              big >= Self.mixedSizes * small else {
            guard let tight else { return [] }
            return try readTight(all, of: letters, prepared: p, region: region, image: image, engine: engine, tight: tight)
        }
        let picked = all.sorted { $0.letters > $1.letters }.prefix(Self.mostPieces)
        let length = standing ? upright.height : upright.width
        let acrossAll = standing ? upright.width : upright.height
        // Across: the band with its margin where there is one (a neighbour's sliver spoils a reading).
        let band = Self.bandSpan(region, upright: upright, offset: standing ? p.offsetX : p.offsetY)
        let across = band.map { b in max(0, b.lowerBound - Self.bandMargin(b))..<min(acrossAll, b.upperBound + Self.bandMargin(b)) }
            ?? 0..<acrossAll
        var lines: [ReadLine] = []
        for (k, piece) in picked.enumerated() {
            let size = piece.size / p.factor
            let margin = Int((0.6 * size).rounded(.up))
            let lo = max(0, Int(Double(piece.along.lowerBound) / p.factor) - margin)
            let hi = min(length, Int((Double(piece.along.upperBound) / p.factor).rounded(.up)) + margin)
            guard hi - lo >= 8, across.count >= 8 else { continue }
            let box = standing ? BoundingBox(x: across.lowerBound, y: lo, width: across.count, height: hi - lo)
                               : BoundingBox(x: lo, y: across.lowerBound, width: hi - lo, height: across.count)
            let crop = try upright.cropped(to: box)
            let factor = min(Self.maximumScale, max(0.2, targetTextHeight / max(1, size)))
            let sized = abs(factor - 1) > 0.08 ? try crop.scaled(by: factor) : crop
            lines += try read(sized, turns: turns, single: true, region: region, factor: factor,
                              offset: (p.offsetX - Double(box.x), p.offsetY - Double(box.y)),
                              background: UInt32(crop.median ?? 255), engine: engine, thresholding: .global, tag: "-piece\(k)")
                .filter { region.holds($0.box) }
                .map { $0.inside(width: image.width, height: image.height) }
        }
        return lines
    }

    /// How a spine with no sure line whose letters are not of mixed sizes is read by
    /// `readPieces`: the longest line of letters of each piece (letters of the piece's size
    /// gathered by where they lie across the spine), cut out tightly along and across with a
    /// margin of 0.6 letter heights, scaled so the letters are `targetTextHeight` high and read
    /// alone in `turns`. Tesseract's layout analysis reads nothing of a title beside other print
    /// (an author's line, a logo, the next book's edge in a loose crop of a pile) that it reads
    /// at once cut out ("STORYWORLD" in a stack, "SASS FOR WEB DESIGNERS" on a thin spine).
    /// A line that fills most of the crop already is not read again. Kept: lines of two words
    /// of three letters or more (a cut-out word alone names one-word titles too easily), not
    /// over `avoiding` (named books' evidence: a named spine's ink read again from an
    /// overlapping region).
    public struct TightReading: Sendable {
        public var turns: [Int]
        public var avoiding: [BoundingBox]
        public init(turns: [Int], avoiding: [BoundingBox]) {
            self.turns = turns
            self.avoiding = avoiding
        }
    }

    private func readTight(_ pieces: [Piece], of letters: [BoundingBox], prepared p: Prepared, region: TextRegion,
                           image: PixImage, engine: TesseractEngine, tight: TightReading) throws(ShelfScanError) -> [ReadLine] {
        guard let upright = p.upright else { return [] }
        let standing = region.layout == .spine
        let picked = pieces.filter { $0.letters >= Self.tightLetters }.sorted { $0.letters > $1.letters }.prefix(Self.mostPieces)
        let length = standing ? upright.height : upright.width
        let acrossAll = standing ? upright.width : upright.height
        var lines: [ReadLine] = []
        func along(_ b: BoundingBox) -> Range<Int> { standing ? b.y..<(b.y + b.height) : b.x..<(b.x + b.width) }
        func across(_ b: BoundingBox) -> Range<Int> { standing ? b.x..<(b.x + b.width) : b.y..<(b.y + b.height) }
        func centre(_ r: Range<Int>) -> Double { Double(r.lowerBound + r.upperBound) / 2 }
        for (k, piece) in picked.enumerated() {
            // The piece's letters gathered into lines by where they lie across the spine; the
            // line with the most letters is cut out.
            let own = letters.filter { b in
                let h = Double(across(b).count)
                return piece.along.contains(along(b).lowerBound) && h < Self.mixedSizes * piece.size && piece.size < Self.mixedSizes * h
            }.sorted { centre(across($0)) < centre(across($1)) }
            var runs: [[BoundingBox]] = []
            for b in own {
                if let last = runs.last?.last, centre(across(b)) - centre(across(last)) <= 0.5 * piece.size {
                    runs[runs.count - 1].append(b)
                } else {
                    runs.append([b])
                }
            }
            guard let line = runs.max(by: { $0.count < $1.count }), line.count >= Self.tightLetters else { continue }
            let size = piece.size / p.factor
            let margin = Int((0.6 * size).rounded(.up))
            let lineAlong = line.map { along($0).lowerBound }.min()!..<line.map { along($0).upperBound }.max()!
            let lineAcross = line.map { across($0).lowerBound }.min()!..<line.map { across($0).upperBound }.max()!
            let lo = max(0, Int(Double(lineAlong.lowerBound) / p.factor) - margin)
            let hi = min(length, Int((Double(lineAlong.upperBound) / p.factor).rounded(.up)) + margin)
            let alo = max(0, Int(Double(lineAcross.lowerBound) / p.factor) - margin)
            let ahi = min(acrossAll, Int((Double(lineAcross.upperBound) / p.factor).rounded(.up)) + margin)
            guard hi - lo >= 8, ahi - alo >= 8,
                  Double((hi - lo) * (ahi - alo)) <= Self.tightShare * Double(length * acrossAll) else { continue }
            let box = standing ? BoundingBox(x: alo, y: lo, width: ahi - alo, height: hi - lo)
                               : BoundingBox(x: lo, y: alo, width: hi - lo, height: ahi - alo)
            let crop = try upright.cropped(to: box)
            let factor = min(Self.maximumScale, max(0.2, targetTextHeight / max(1, size)))
            let sized = abs(factor - 1) > 0.08 ? try crop.scaled(by: factor) : crop
            lines += try read(sized, turns: tight.turns, single: true, region: region, factor: factor,
                              offset: (p.offsetX - Double(box.x), p.offsetY - Double(box.y)),
                              background: UInt32(crop.median ?? 255), engine: engine, thresholding: .global, tag: "-tight\(k)")
                .filter { line in
                    region.holds(line.box) && !tight.avoiding.contains { Self.overlap(line.box, $0) > 0.3 }
                        && line.text.split(separator: " ").filter { $0.filter(\.isLetter).count >= 3 }.count >= 2
                }
                .map { $0.inside(width: image.width, height: image.height) }
        }
        return lines
    }

    /// A line of letters cut out tightly has at least this many.
    static let tightLetters = Int(ProcessInfo.processInfo.environment["SHELFSCAN_TIGHT_LETTERS"] ?? "6") ?? 6
    /// A line of letters whose tight crop covers more than this share of the region's is not read again.
    static let tightShare = Double(ProcessInfo.processInfo.environment["SHELFSCAN_TIGHT_SHARE"] ?? "0.6") ?? 0.6

    /// A standing spine's band read upright (0°), for a title printed across the spine (a
    /// hardback's, or a big-name paperback's, whose author runs along it: "STEPHEN KING" read
    /// surely, "DOCTOR / SLEEP" across beside it never read). Words across a spine are a sixth
    /// to a tenth of its width high, so the band is scaled to `acrossWidth` pixels wide and read
    /// as sparse text (the letters running along the spine, turned, are noise to a block
    /// reading). Empty for regions that are not standing spines or are too thin to hold a word.
    public func readAcross(_ region: TextRegion, in image: PixImage, engine: TesseractEngine) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout == .spine else { return [] }
        let (upright, offsetX, offsetY) = try uprightKept(region, in: image)
        let span = Self.bandSpan(region, upright: upright, offset: offsetX) ?? 0..<upright.width
        let margin = Self.bandMargin(span)
        let lo = max(0, span.lowerBound - margin), hi = min(upright.width, span.upperBound + margin)
        let aspect = Double(span.count) / Double(max(1, upright.height))
        guard hi - lo >= Self.minimumAcrossBand, aspect >= min(Self.minimumAcrossAspect, Self.acrossLinesAspect) else { return [] }
        if Self.acrossLines != "off", aspect >= Self.acrossLinesAspect {
            let lines = try readAcrossLines(region, upright: upright, band: span, offset: (offsetX, offsetY), image: image, engine: engine)
            if Self.acrossLines == "only" || !lines.isEmpty || aspect < Self.minimumAcrossAspect { return lines }
        }
        guard aspect >= Self.minimumAcrossAspect else { return [] }
        let strip = try Self.strip(of: upright, across: lo..<hi, standing: true)
        let factor = min(4, max(1, Self.acrossWidth / Double(hi - lo)))
        let sized = factor > 1.08 ? try strip.scaled(by: factor) : strip
        let background = UInt32(try Self.strip(of: upright, across: span, standing: true).median ?? 255)
        return try read(sized, turns: [0], single: false, region: region, factor: factor,
                        offset: (offsetX - Double(lo), offsetY), background: background, engine: engine,
                        thresholding: .global, tag: "-across", page: .sparse)
            .filter { region.holds($0.box) }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// `readAcross` by lines (`readAcrossLines`), falling back to the sparse reading of the whole
    /// band where they read nothing; `only` without the fallback, `off` the sparse reading alone
    /// (`SHELFSCAN_ACROSS_LINES`, for measuring). Falling back only where no line of letters was
    /// found at all saved 4 of the 12 MP shelf's 8 whole-band readings, but lost *The Bachman
    /// Books* (`adam2`), whose band read whole names it.
    static let acrossLines = ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_LINES"] ?? "on"

    /// The lines of letters printed across a standing spine (`acrossLineBoxes`), stacked ones
    /// joined into blocks (`acrossBlocks`), each block cut out of the band alone (the spine's
    /// own width, no neighbour's sliver; `acrossMargin` letters above and below, half a letter
    /// beside), turned dark on light where the letters are light, scaled to `targetTextHeight`
    /// and read as one line or one block. In the band read whole, Tesseract's threshold falls between the
    /// author's big black letters along the spine and the rest, and a title in gray or small
    /// letters across it goes white with the ground ("STEPHEN KING" along, "CELL" in light gray
    /// across; "LISEY'S / STORY"); cut out, each line reads at once.
    func readAcrossLines(_ region: TextRegion, upright: PixImage, band: Range<Int>, offset: (Double, Double),
                         image: PixImage, engine: TesseractEngine) throws(ShelfScanError) -> [ReadLine] {
        let strip = try Self.strip(of: upright, across: band, standing: true)
        // Letters looked for at a width of at least `acrossLetterWidth` (small photos' spines).
        let look = max(1, Self.acrossLetterWidth / Double(band.count))
        let looked = look > 1.08 ? try strip.scaled(by: look) : strip
        guard let (kept, dark, light) = try Self.letterLines(in: looked, window: max(8, looked.width / 4), runs: { shapes in
            Self.acrossLineBoxes(shapes, width: looked.width, height: looked.height)
        }) else { return [] }
        let blocks = Self.acrossBlocks(kept).prefix(Self.mostAcrossLines)
        if Self.traceReads {
            FileHandle.standardError.write(Data("ACROSS r\(region.row)-\(region.index) band \(band) look \(String(format: "%.2f", look)) shapes \(dark.count)+\(light.count) blocks \(blocks.map { $0.map { "\($0.box) n\($0.letters)\($0.light ? " light" : "")" } })\n".utf8))
            if let folder = Self.debugFolder { try? looked.writePNG(to: "\(folder)/r\(region.row)-\(region.index)-acrossLook.png") }
            if Self.traceLetters { FileHandle.standardError.write(Data("ACROSS-LETTERS dark \(dark.map { "\($0.x),\($0.y) \($0.width)x\($0.height)" }) light \(light.map { "\($0.x),\($0.y) \($0.width)x\($0.height)" })\n".utf8)) }
        }
        var lines: [ReadLine] = []
        for (k, block) in blocks.sorted(by: { $0[0].box.y < $1[0].box.y }).enumerated() {
            let size = block.map(\.size).max()! / look
            let margin = Int((Self.acrossMargin * size).rounded(.up)), side = Int((0.5 * size).rounded(.up))
            let top = block.map(\.box.y).min()!, bottom = block.map { $0.box.y + $0.box.height }.max()!
            let left = block.map(\.box.x).min()!, right = block.map { $0.box.x + $0.box.width }.max()!
            let y0 = max(0, Int(Double(top) / look) - margin)
            let y1 = min(upright.height, Int((Double(bottom) / look).rounded(.up)) + margin)
            let x0 = max(band.lowerBound, band.lowerBound + Int(Double(left) / look) - side)
            let x1 = min(band.upperBound, band.lowerBound + Int((Double(right) / look).rounded(.up)) + side)
            guard y1 - y0 >= 8, x1 - x0 >= 8 else { continue }
            let box = BoundingBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            lines += try readCutOut(box, of: upright, block: block, size: size, turns: [0], floor: Self.acrossConfidence,
                                    region: region, offset: offset, image: image, engine: engine, tag: "-acrossLine\(k)")
        }
        return lines
    }

    /// `box` of `upright` (a region's upright crop, `offset` its turn's growth) cut out alone,
    /// turned dark on light where `block`'s letters are light, scaled so letters `size` high are
    /// `targetTextHeight` high, and read as one line (as a block when `block` holds several
    /// lines) in `turns`, lines kept from `floor` (or `minimumConfidence` if lower): the lines
    /// on the region, placed in the photo (`readAcrossLines`, `readAlongLines`).
    private func readCutOut(_ box: BoundingBox, of upright: PixImage, block: [AcrossLine], size: Double, turns: [Int], floor: Double,
                            region: TextRegion, offset: (Double, Double), image: PixImage, engine: TesseractEngine,
                            tag: String) throws(ShelfScanError) -> [ReadLine] {
        var crop = try upright.cropped(to: box)
        if block[0].light { crop = try crop.inverted() }
        let factor = min(Self.maximumScale * 2, max(0.2, targetTextHeight / max(1, size)))
        let sized = abs(factor - 1) > 0.08 ? try crop.scaled(by: factor) : crop
        var loose = self
        loose.minimumConfidence = min(minimumConfidence, floor)
        return try loose.read(sized, turns: turns, single: true, region: region, factor: factor,
                              offset: (offset.0 - Double(box.x), offset.1 - Double(box.y)),
                              background: UInt32(crop.median ?? 255), engine: engine, thresholding: .global,
                              tag: tag, page: block.count > 1 ? .block : .line)
            .filter { region.holds($0.box) }
            .map { $0.inside(width: image.width, height: image.height) }
    }

    /// The lines of letters in `looked` (a band's picture, its text running left to right):
    /// Sauvola shapes at `acrossSauvola` in a `window`, dark and light letters apart, gathered by
    /// `runs`, most letters first; a line found both ways (the ground between letters read as
    /// shapes) kept once, the way with more letters. Nil when the picture holds 3,000 shapes or
    /// more (a picture, a texture). The shapes come too, for tracing.
    static func letterLines(in looked: PixImage, window: Int, runs: ([BoundingBox]) -> [AcrossLine]) throws(ShelfScanError)
        -> (lines: [AcrossLine], dark: [BoundingBox], light: [BoundingBox])?
    {
        let (dark, light) = try looked.darkAndLightShapes(halfWindow: window, factor: acrossSauvola)
        guard dark.count + light.count < 3000 else { return nil }
        let found = (runs(dark) + runs(light).map { var l = $0; l.light = true; return l }).sorted { $0.letters > $1.letters }
        var kept: [AcrossLine] = []
        for line in found where !kept.contains(where: { overlap(line.box, $0.box) > 0.3 }) { kept.append(line) }
        return (kept, dark, light)
    }

    /// The lines of letters along a spine that named no book, looked for as `readAcrossLines`
    /// looks across: Sauvola shapes at a low k on the band alone, dark and light apart,
    /// gathered into runs, runs a word space apart joined into lines (`wordsJoined`) and lines
    /// stacked side by side into blocks (a title over two lines); each block not lying under a
    /// sure line (read at `retryBelow` or more in `before`) cut out of the band, turned dark on
    /// light where its letters are light, scaled to `targetTextHeight` and read alone in the
    /// surest line's direction, or in `turns` where no line was read surely (nothing read then
    /// when nil). Tesseract's one threshold falls between a name printed white or black and a
    /// title in gold, gray or a pale colour beside it ("FRANCES HODGSON BURNETT" read at 95, "THE
    /// SECRET GARDEN" in pale small capitals beside it never). The lines come marked
    /// `ReadLine.cutOut`.
    public func readAlongLines(_ region: TextRegion, in image: PixImage, engine: TesseractEngine,
                               besides before: [ReadLine], turns: [Int]? = nil) throws(ShelfScanError) -> [ReadLine] {
        guard region.layout != .cover else { return [] }
        let sure = sureLines(before, on: region).filter { region.quarterTurns.contains($0.quarterTurns) }
        guard let readTurns = sure.max(by: { $0.confidence < $1.confidence }).map({ [$0.quarterTurns] }) ?? turns else { return [] }
        let standing = region.layout == .spine
        let (upright, offsetX, offsetY) = try uprightKept(region, in: image)
        let acrossAll = standing ? upright.width : upright.height
        let band = Self.bandSpan(region, upright: upright, offset: standing ? offsetX : offsetY) ?? 0..<acrossAll
        guard band.count >= 8 else { return [] }
        // The band turned so that its text runs left to right (a quarter turn for a standing one).
        let strip = try Self.strip(of: upright, across: band, standing: standing)
        let flat = standing ? try strip.rotated(quarterTurns: 1) : strip
        let look = max(1, Self.alongLetterThickness / Double(flat.height))
        let looked = look > 1.08 ? try flat.scaled(by: look) : flat
        guard let (found, dark, light) = try Self.letterLines(in: looked, window: max(8, looked.height / 3), runs: { shapes in
            Self.acrossLineBoxes(shapes, width: looked.width, height: looked.height, thickness: looked.height,
                                 least: Self.alongLetterLeast, share: Self.alongLetterShare)
        }) else { return [] }
        let kept = Self.wordsJoined(found)
        // A box of the flat, looked-at band in the photo's upright crop.
        func inUpright(_ b: BoundingBox) -> BoundingBox {
            let x0 = Double(b.x) / look, x1 = Double(b.x + b.width) / look
            let y0 = Double(b.y) / look, y1 = Double(b.y + b.height) / look
            guard standing else {
                return BoundingBox(x: Int(x0), y: band.lowerBound + Int(y0), width: Int((x1 - x0).rounded(.up)), height: Int((y1 - y0).rounded(.up)))
            }
            // Turned a quarter clockwise, (x, y) -> (h - y, x): the flat band's x runs up the
            // strip, its y rightwards.
            let h = Double(strip.height)
            return BoundingBox(x: band.lowerBound + Int(y0), y: max(0, Int(h - x1)),
                               width: Int((y1 - y0).rounded(.up)), height: Int((x1 - x0).rounded(.up)))
        }
        // ...and in the photo (a leaning spine's turn left out: only compared with sure lines).
        func inPhoto(_ b: BoundingBox) -> BoundingBox {
            BoundingBox(x: region.box.x + b.x - Int(offsetX), y: region.box.y + b.y - Int(offsetY), width: b.width, height: b.height)
        }
        // Blocks a sure line lies over, about as long, are what was read already (a sure line
        // with a junk word read beside its name is longer).
        func along(_ b: BoundingBox) -> Int { standing ? b.height : b.width }
        let blocks = Self.acrossBlocks(kept).filter { block in
            !block.contains { line in
                let box = inPhoto(inUpright(line.box))
                return sure.contains { Self.overlap(box, $0.box) > 0.5 && Double(along($0.box)) <= 1.5 * Double(along(box)) }
            }
        }.prefix(Self.mostAlongLines)
        if Self.traceReads {
            FileHandle.standardError.write(Data("ALONG r\(region.row)-\(region.index) band \(band) look \(String(format: "%.2f", look)) shapes \(dark.count)+\(light.count) runs \(kept.map { "\(inPhoto(inUpright($0.box))) n\($0.letters)" }) sure \(sure.map { "\($0.box) \($0.text)" }) blocks \(blocks.map { $0.map { "\(inUpright($0.box)) n\($0.letters)\($0.light ? " light" : "")" } })\n".utf8))
            if let folder = Self.debugFolder { try? looked.writePNG(to: "\(folder)/r\(region.row)-\(region.index)-alongLook.png") }
        }
        var lines: [ReadLine] = []
        for (k, block) in blocks.enumerated() {
            let size = block.map(\.size).max()! / look
            let acrossMargin = Int((Self.acrossMargin * size).rounded(.up)), alongMargin = Int((0.5 * size).rounded(.up))
            let boxes = block.map { inUpright($0.box) }
            let x0 = boxes.map(\.x).min()!, y0 = boxes.map(\.y).min()!
            let x1 = boxes.map { $0.x + $0.width }.max()!, y1 = boxes.map { $0.y + $0.height }.max()!
            let box: BoundingBox
            if standing {
                let lo = max(band.lowerBound, x0 - acrossMargin), hi = min(band.upperBound, x1 + acrossMargin)
                let top = max(0, y0 - alongMargin), bottom = min(upright.height, y1 + alongMargin)
                box = BoundingBox(x: lo, y: top, width: hi - lo, height: bottom - top)
            } else {
                let lo = max(band.lowerBound, y0 - acrossMargin), hi = min(band.upperBound, y1 + acrossMargin)
                let left = max(0, x0 - alongMargin), right = min(upright.width, x1 + alongMargin)
                box = BoundingBox(x: left, y: lo, width: right - left, height: hi - lo)
            }
            guard box.width >= 8, box.height >= 8 else { continue }
            lines += try readCutOut(box, of: upright, block: block, size: size, turns: readTurns, floor: Self.alongConfidence,
                                    region: region, offset: (offsetX, offsetY), image: image, engine: engine, tag: "-alongLine\(k)")
                .filter { line in !before.contains { line.addsNothing(to: $0) } }
                .map { var line = $0; line.cutOut = true; return line }
        }
        return lines
    }

    /// Runs of letters at one level, of one polarity and size (within 1.6 times), with a gap
    /// of at most `alongWordGap` letter heights between them, joined into one line: the words
    /// of a title along a spine (a word space in small capitals is wider than a letter).
    static func wordsJoined(_ runs: [AcrossLine]) -> [AcrossLine] {
        var lines: [AcrossLine] = []
        for run in runs.sorted(by: { $0.box.x < $1.box.x }) {
            func centre(_ b: BoundingBox) -> Double { Double(b.y) + Double(b.height) / 2 }
            if let i = lines.indices.last(where: { i in
                let last = lines[i]
                let big = max(run.size, last.size), small = min(run.size, last.size)
                let gap = Double(run.box.x - (last.box.x + last.box.width))
                return last.light == run.light && big <= 1.6 * small && gap >= -0.3 * small && gap <= alongWordGap * big
                    && abs(centre(run.box) - centre(last.box)) <= 0.35 * big
            }) {
                let last = lines[i]
                let x0 = min(last.box.x, run.box.x), y0 = min(last.box.y, run.box.y)
                let x1 = max(last.box.x + last.box.width, run.box.x + run.box.width)
                let y1 = max(last.box.y + last.box.height, run.box.y + run.box.height)
                lines[i] = AcrossLine(box: BoundingBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0),
                                      size: (last.size * Double(last.letters) + run.size * Double(run.letters)) / Double(last.letters + run.letters),
                                      letters: last.letters + run.letters, light: run.light)
            } else {
                lines.append(run)
            }
        }
        return lines.sorted { $0.letters > $1.letters }
    }

    /// Lines cut out along a spine are kept from this confidence, or `minimumConfidence` if lower
    /// (`SHELFSCAN_ALONG_CONFIDENCE`, for measuring): the pale "Tue Secust Ganben" reads at 40-43.
    static let alongConfidence = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_CONFIDENCE"] ?? "40") ?? 40
    /// Gap between words of a line along a spine, at most (letter heights).
    static let alongWordGap = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_GAP"] ?? "2.0") ?? 2.0
    /// A spine's band is scaled to this thickness at least to look for letters along it.
    static let alongLetterThickness = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_THICKNESS"] ?? "120") ?? 120
    /// Letters along a spine are from this share of its band's thickness high...
    static let alongLetterLeast = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_LEAST"] ?? "0.06") ?? 0.06
    /// ...to this share.
    static let alongLetterShare = 0.8
    /// Blocks of lines along one spine read at most.
    static let mostAlongLines = Int(ProcessInfo.processInfo.environment["SHELFSCAN_ALONG_MOST"] ?? "3") ?? 3

    /// Lines across a spine stacked into blocks read together ("ALICE / IN / WONDER / LAND":
    /// a word too short to make a line, "IN", is read between its neighbours): a line joins the
    /// block above it when both are dark or both light, of one size (within 1.6 times), overlap
    /// across the band, and the gap between them is under `acrossBlockGap` letter heights. The
    /// blocks come with the most letters first.
    static func acrossBlocks(_ lines: [AcrossLine]) -> [[AcrossLine]] {
        var blocks: [[AcrossLine]] = []
        for line in lines.sorted(by: { $0.box.y < $1.box.y }) {
            let joined = blocks.indices.last { i in
                let last = blocks[i].last!
                let big = max(line.size, last.size), small = min(line.size, last.size)
                let gap = Double(line.box.y - (last.box.y + last.box.height))
                return last.light == line.light && big <= 1.6 * small && gap <= acrossBlockGap * big
                    && line.box.x < last.box.x + last.box.width && last.box.x < line.box.x + line.box.width
            }
            if let i = joined { blocks[i].append(line) } else { blocks.append([line]) }
        }
        return blocks.sorted { $0.reduce(0) { $0 + $1.letters } > $1.reduce(0) { $0 + $1.letters } }
    }

    /// Gap between lines across a spine read as one block, at most (letter heights: room for a
    /// short word between, "IN").
    static let acrossBlockGap = 2.0

    /// A line of letters across a spine (`acrossLineBoxes`): its box and its letters' median height.
    struct AcrossLine: Equatable {
        var box: BoundingBox
        var size: Double
        var letters: Int
        /// Light letters on a darker ground (found in the inverted picture).
        var light = false
    }

    /// Lines of letters running across a standing spine's band (`boxes`: shapes of a `width` x
    /// `height` picture of the band, upright): shapes from `acrossLetterLeast` to
    /// `acrossLetterShare` of the band high and at most six times as wide as high, gathered left
    /// to right into runs at one level and size, a gap under `acrossGap` letter heights between
    /// neighbours; runs of `acrossLineLetters` letters or more (a shape counts as many letters as
    /// fit its width: small letters run together), and of two shapes or more unless the one
    /// holds four letters; none touching a side of the band. Letters along the spine, turned, stand one above the next
    /// and make no run; neither do a picture's specks, which differ in size and level.
    /// `thickness`: what the letters' heights are measured against (the band's width when nil,
    /// as across a spine; the band's thickness for lines along it, `readAlongLines`), from
    /// `least` to `share` of it.
    static func acrossLineBoxes(_ boxes: [BoundingBox], width: Int, height: Int, thickness: Int? = nil,
                                least: Double = acrossLetterLeast, share: Double = acrossLetterShare) -> [AcrossLine] {
        let reference = Double(thickness ?? width)
        let letters = boxes.filter { b in
            b.height >= 6 && Double(b.height) >= least * reference
                && Double(b.height) <= share * reference && b.width <= 6 * b.height
                && b.y > 0 && b.y + b.height < height
        }.sorted { $0.x < $1.x }
        func centre(_ b: BoundingBox) -> Double { Double(b.y) + Double(b.height) / 2 }
        var runs: [[BoundingBox]] = []
        for b in letters {
            let h = Double(b.height)
            // The run this letter follows most closely: its last letter just before, at its level and size.
            let joined = runs.indices.filter { i in
                let last = runs[i].last!
                let lh = Double(last.height)
                let gap = Double(b.x - (last.x + last.width))
                return gap >= -0.3 * min(h, lh) && gap <= acrossGap * max(h, lh)
                    && abs(centre(b) - centre(last)) <= 0.25 * max(h, lh)
                    && max(h, lh) <= 1.5 * min(h, lh)
            }.min { abs(centre(runs[$0].last!) - centre(b)) < abs(centre(runs[$1].last!) - centre(b)) }
            if let i = joined { runs[i].append(b) } else { runs.append([b]) }
        }
        // Small serif or bold letters run together into one shape ("Carrie" in two): a shape
        // counts as many letters as it is wide for its height.
        func letterCount(_ run: [BoundingBox]) -> Int {
            run.reduce(0) { $0 + max(1, Int((Double($1.width) / (0.7 * Double($1.height))).rounded())) }
        }
        // A run touching a side of the band is its end, a rule, a stripe or the neighbour's
        // edge: print across a spine keeps a margin.
        return runs.compactMap { run -> AcrossLine? in
            let x0 = run.map(\.x).min()!, y0 = run.map(\.y).min()!
            let x1 = run.map { $0.x + $0.width }.max()!, y1 = run.map { $0.y + $0.height }.max()!
            guard letterCount(run) >= acrossLineLetters, run.count >= 2 || letterCount(run) >= 4,
                  x0 > 1, x1 < width - 1 else { return nil }
            let heights = run.map { Double($0.height) }.sorted()
            return AcrossLine(box: BoundingBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0),
                              size: heights[heights.count / 2], letters: letterCount(run))
        }
    }

    /// Letters of a line across a spine, at least.
    static let acrossLineLetters = Int(ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_LETTERS"] ?? "3") ?? 3
    /// Spines this share of their length thick and more are looked at for lines across them
    /// (`readAcrossLines`; the whole band's sparse reading only from `minimumAcrossAspect`).
    static let acrossLinesAspect = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_ASPECT"] ?? "0.06") ?? 0.06
    /// Sauvola's k for the letters across a spine: low, for a title in gray beside black letters.
    static let acrossSauvola = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_K"] ?? "0.1") ?? 0.1
    /// Margin above and below a line across a spine when it is cut out (letter heights).
    static let acrossMargin = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_MARGIN"] ?? "0.3") ?? 0.3
    /// Blocks of lines across one spine read at most.
    static let mostAcrossLines = 4
    /// A letter across a spine is at least this share of its width high (specks, a rule's grain).
    static let acrossLetterLeast = 0.06
    /// Lines read across a spine are kept from this confidence, or `minimumConfidence` if lower
    /// (`SHELFSCAN_ACROSS_CONFIDENCE`, for measuring). `adam1`'s pale, blurred "CELL" reads right
    /// at 45, but at 40 the real shelves found 425 / 448 / 23 instead of 427 / 448 / 21: *Cell* in,
    /// *The Bachman Books* and *Murder Games* out for *The House Girl* ("house" at 41 beside
    /// the next spine's "HE GIRI") and *Cradle and All*.
    static let acrossConfidence = Double(ProcessInfo.processInfo.environment["SHELFSCAN_ACROSS_CONFIDENCE"] ?? "50") ?? 50
    /// A letter across a spine is at most this share of its width high.
    static let acrossLetterShare = 0.45
    /// Gap between neighbouring letters of a line across, at most (letter heights: a word space).
    static let acrossGap = 1.0
    /// Width a band is scaled up to, at least, to look for letters across it.
    static let acrossLetterWidth = 120.0

    /// Width a spine's band is scaled to for `readAcross`.
    static let acrossWidth = 300.0
    /// Bands thinner than this (photo pixels) hold no word across them worth reading.
    static let minimumAcrossBand = 24
    /// Nor spines thinner than this share of their length: titles are printed across spines of
    /// 25 mm and more (a tenth of a hardback's height and more), not across thin paperbacks.
    static let minimumAcrossAspect = 0.1

    /// The region cut from `image` in gray and turned back upright by its lean (white comes in
    /// at the corners), with what the turn added to each side (x, y).
    func upright(_ region: TextRegion, in image: PixImage, leastTurn: Double = 1.5) throws(ShelfScanError) -> (PixImage, Double, Double) {
        var gray: PixImage
        if let hue = hueCrop {
            gray = hue
        } else {
            gray = try image.grayCrop(region.box, darkest: darkestChannel)
        }
        if stretchContrast, region.layout != .cover, let range = try Self.dimRange(of: gray, region: region) {
            gray = try gray.stretched(black: range.black, white: range.white)
        }
        let upright = abs(region.lean) >= leastTurn ? try gray.rotated(degrees: -region.lean) : gray
        return (upright, Double(upright.width - gray.width) / 2, Double(upright.height - gray.height) / 2)
    }

    /// The grays a dim spine spans (its band's, or the whole crop's without one; 1st to 99th
    /// percentile), when they span under `dimSpread`: stretched over the whole range, its text
    /// no longer falls on the dark side of the threshold Tesseract puts between the white
    /// padding and everything else (gray lettering on a black paperback in a dim room).
    static func dimRange(of gray: PixImage, region: TextRegion) throws(ShelfScanError) -> (black: UInt8, white: UInt8)? {
        let band = bandSpan(region, upright: gray, offset: 0)
        let sample = try band.map { span throws(ShelfScanError) in try strip(of: gray, across: span, standing: region.layout == .spine) } ?? gray
        guard let grays = sample.ranks([0.01, 0.99]) else { return nil }
        let (black, white) = (grays[0], grays[1])
        let spread = Int(white) - Int(black)
        return spread < dimSpread && spread >= 16 ? (black, white) : nil
    }

    /// Spines whose grays span less than this are stretched (`dimRange`).
    static let dimSpread = Int(ProcessInfo.processInfo.environment["SHELFSCAN_DIM_SPREAD"] ?? "160") ?? 160

    /// A region cut from the photo, gray, upright and scaled for reading.
    struct Prepared {
        var sized: PixImage
        var factor: Double
        /// What deskewing added to each side (upright pixels, before scaling).
        var offsetX: Double
        var offsetY: Double
        /// The gray the crop is padded with (white, or see `spineGray`).
        var background: UInt32
        /// The spine's band across `sized` (pixels), nil without one.
        var band: Range<Int>?
        /// The crop before scaling (to read it at another scale).
        var upright: PixImage? = nil
    }

    /// The region cut from `image`, gray, upright and scaled for reading.
    /// `leastTurn`: leans under this many degrees are read as they are.
    func prepare(_ region: TextRegion, in image: PixImage, leastTurn: Double = 1.5) throws(ShelfScanError) -> Prepared {
        // A region's crop, made once for all the passes after the first reading (`PreparedCrops`).
        guard hueCrop == nil else { return try prepareAnew(region, in: image, leastTurn: leastTurn) }
        let key = cropKey(region, leastTurn: leastTurn)
        if let known = crops.crop(key, of: image) { return known }
        let made = try prepareAnew(region, in: image, leastTurn: leastTurn)
        crops.keep(made, key, of: image)
        return made
    }

    /// Lets go of every kept crop but those `regions` are read from (`PreparedCrops.keepOnly`).
    func keepCrops(of regions: [TextRegion]) {
        crops.keepOnly(Set(regions.map { cropKey($0, leastTurn: 1.5) }))
    }

    private func cropKey(_ region: TextRegion, leastTurn: Double) -> PreparedCrops.Key {
        PreparedCrops.Key(box: region.box, lean: region.lean, band: region.band.map { [$0.lowerBound, $0.upperBound] } ?? [],
                          layout: region.layout, typical: region.typicalThickness, leastTurn: leastTurn,
                          darkest: darkestChannel, stretch: stretchContrast, grayPadding: spineGrayPadding,
                          target: targetTextHeight)
    }

    /// `upright`, taken from the region's kept crop when there is one (the same gray, turned
    /// the same way): a leaning spine's turn is a tenth of a real shelf's CPU, and the passes
    /// reading across and along its band turned it again.
    func uprightKept(_ region: TextRegion, in image: PixImage) throws(ShelfScanError) -> (PixImage, Double, Double) {
        if Self.reuseUpright, hueCrop == nil, let known = crops.crop(cropKey(region, leastTurn: 1.5), of: image), let upright = known.upright {
            return (upright, known.offsetX, known.offsetY)
        }
        return try upright(region, in: image)
    }

    /// `SHELFSCAN_REUSE_UPRIGHT=off`: the passes across and along a band turn the crop again.
    static let reuseUpright = ProcessInfo.processInfo.environment["SHELFSCAN_REUSE_UPRIGHT"] != "off"

    private func prepareAnew(_ region: TextRegion, in image: PixImage, leastTurn: Double) throws(ShelfScanError) -> Prepared {
        let (upright, offsetX, offsetY) = try self.upright(region, in: image, leastTurn: leastTurn)
        let offset = region.layout == .spine ? offsetX : offsetY
        let band = Self.bandSpan(region, upright: upright, offset: offset)
        let background = spineGrayPadding ? try Self.spineGray(upright, region: region, offset: offset) : nil
        let factor = scale(for: region, width: upright.width, height: upright.height)
        let sized = abs(factor - 1) > 0.08 ? try upright.scaled(by: factor) : upright
        let scaled = band.map { Int((Double($0.lowerBound) * factor).rounded())..<Int((Double($0.upperBound) * factor).rounded()) }
        return Prepared(sized: sized, factor: factor, offsetX: offsetX, offsetY: offsetY,
                        background: background.map(UInt32.init) ?? 255, band: scaled, upright: upright)
    }

    /// Where the region's band lies across its upright crop (pixels); nil for covers, regions
    /// without a band, and bands under 4 pixels. Turning about the crop's centre keeps a point
    /// on its middle line at the same offset from the centre (to within cos(lean)), and the
    /// turned canvas grew by `offset` on each side.
    static func bandSpan(_ region: TextRegion, upright: PixImage, offset: Double) -> Range<Int>? {
        guard let band = region.band, region.layout != .cover else { return nil }
        let standing = region.layout == .spine
        let across = standing ? upright.width : upright.height
        let start = Double(standing ? region.box.x : region.box.y) - offset
        let lo = max(0, Int((band.lowerBound - start).rounded(.up)))
        let hi = min(across, Int((band.upperBound - start).rounded(.down)))
        return hi - lo >= 4 ? lo..<hi : nil
    }

    /// The spine's typical gray (the median of its band, between its edges), which its crop can
    /// be padded with (`spineGrayPadding`). Tesseract thresholds the whole image at one level
    /// (Otsu): white padding around a mid-gray spine can make that level separate the padding
    /// from the spine, which turns black, text and all. Nil (white padding) without a band.
    ///
    /// Painting the neighbours' slivers beyond the band over in that gray as well was tried and
    /// made recall worse (real shelves about 180 to 154 of 615 books): the band is known only to
    /// a pixel or two of the reduced copy, and text near an edge was cut.
    static func spineGray(_ upright: PixImage, region: TextRegion, offset: Double = 0) throws(ShelfScanError) -> UInt8? {
        guard let band = bandSpan(region, upright: upright, offset: offset) else { return nil }
        return try strip(of: upright, across: band, standing: region.layout == .spine).median
    }

    /// The part of `image` within `span` across the spine (columns standing, rows lying).
    static func strip(of image: PixImage, across span: Range<Int>, standing: Bool) throws(ShelfScanError) -> PixImage {
        try image.cropped(to: standing
            ? BoundingBox(x: span.lowerBound, y: 0, width: span.count, height: image.height)
            : BoundingBox(x: 0, y: span.lowerBound, width: image.width, height: span.count))
    }

    /// A band (with its margins) wider than this share of the crop is not read apart: that would
    /// be the same reading again. Even a thin sliver of a neighbour spoils a reading, so the bar
    /// is high: at 0.8 the real shelves found 198 of 615 books, at 0.95 204 (deadline off).
    static let bandMaximum = 0.95

    /// The margin kept on each side of a band when it is read alone (the band is known to a
    /// pixel or two of the reduced copy).
    static func bandMargin(_ band: Range<Int>) -> Int { max(3, band.count / 8) }

    /// The band alone, with a small margin (the band is known to a pixel or two of the reduced
    /// copy), padded with its own gray; nil when the band is most of the crop anyway. The offset
    /// maps it back to the photo as `read` expects.
    func bandCrop(_ p: Prepared, region: TextRegion, margin: Int? = nil) throws(ShelfScanError)
        -> (image: PixImage, offset: (Double, Double), background: UInt32)?
    {
        guard let band = p.band else { return nil }
        let standing = region.layout == .spine
        let across = standing ? p.sized.width : p.sized.height
        let margin = margin ?? Self.bandMargin(band)
        let lo = max(0, band.lowerBound - margin), hi = min(across, band.upperBound + margin)
        guard Double(hi - lo) < Self.bandMaximum * Double(across) else { return nil }
        let image = try Self.strip(of: p.sized, across: lo..<hi, standing: standing)
        let shift = Double(lo) / p.factor
        let offset = standing ? (p.offsetX - shift, p.offsetY) : (p.offsetX, p.offsetY - shift)
        return (image, offset, UInt32(try Self.strip(of: p.sized, across: band, standing: standing).median ?? 255))
    }

    /// The spine's band (or the whole crop across, without one) from its first ink to its last
    /// along the spine, with a margin of half the band; nil unless that cuts a fifth of the
    /// length or more. Ink is where the gray changes (text, the book's own ends); a wall, the
    /// sky or a shelf's shadow beyond the book's end is smooth.
    func inkCrop(_ p: Prepared, region: TextRegion) throws(ShelfScanError)
        -> (image: PixImage, offset: (Double, Double), background: UInt32)?
    {
        guard region.layout != .cover else { return nil }
        let standing = region.layout == .spine
        let across = standing ? p.sized.width : p.sized.height
        let length = standing ? p.sized.height : p.sized.width
        let band = p.band ?? 0..<across
        guard band.count >= 4, length >= 16 else { return nil }
        let g = try p.sized.grayBytes()
        func at(_ along: Int, _ a: Int) -> Int { Int(standing ? g.pixels[along * g.width + a] : g.pixels[a * g.width + along]) }
        var energy = [Double](repeating: 0, count: length)
        for i in 1..<(length - 1) {
            var e = 0
            for a in max(1, band.lowerBound)..<min(across - 1, band.upperBound) {
                e += abs(at(i + 1, a) - at(i - 1, a)) + abs(at(i, a + 1) - at(i, a - 1))
            }
            energy[i] = Double(e) / Double(band.count)
        }
        // Smoothed over a quarter of the band: strokes, not single pixels.
        let smooth = SpineFinder.movingAverage(energy, window: max(2, band.count / 4))
        let p90 = SpineFinder.upperDecile(smooth)
        guard p90 > 0 else { return nil }
        let inked = smooth.indices.filter { smooth[$0] >= 0.2 * p90 }
        guard let first = inked.first, let last = inked.last else { return nil }
        let margin = band.count / 2
        let lo = max(0, first - margin), hi = min(length, last + 1 + margin)
        guard Double(hi - lo) <= 0.8 * Double(length), hi - lo >= 8 else { return nil }
        let a0 = p.band == nil ? 0 : max(0, band.lowerBound - Self.bandMargin(band))
        let a1 = p.band == nil ? across : min(across, band.upperBound + Self.bandMargin(band))
        let box = standing ? BoundingBox(x: a0, y: lo, width: a1 - a0, height: hi - lo)
                           : BoundingBox(x: lo, y: a0, width: hi - lo, height: a1 - a0)
        let image = try p.sized.cropped(to: box)
        let offset = (p.offsetX - Double(box.x) / p.factor, p.offsetY - Double(box.y) / p.factor)
        let strip = try Self.strip(of: p.sized, across: band, standing: standing)
        return (image, offset, UInt32(strip.median ?? 255))
    }

    /// The images Tesseract is given for `region`, one per reading direction tried (for
    /// benchmarks and diagnostics: the same pixels `read` recognises).
    public func crops(for region: TextRegion, in image: PixImage) throws(ShelfScanError) -> [PixImage] {
        var out: [PixImage] = []
        let prepared = try prepare(region, in: image)
        for turns in region.quarterTurns {
            out.append(try prepared.sized.rotated(quarterTurns: turns).padded(by: Self.pad, gray: prepared.background))
        }
        return out
    }

    static let pad = 12

    /// Leaned readings turn the crop from half a degree (a first reading, from 1.5: smaller
    /// turns blur more than they straighten). Turned from 1.5 as well, an upright spine's two
    /// leaned readings were one crop read twice: real shelves 321 found instead of 325.
    static let leanedLeastTurn = 0.5
    static let usualBonus = Double(ProcessInfo.processInfo.environment["SHELFSCAN_USUAL_BONUS"] ?? "10") ?? 10

    /// A crop whose first reading found lines but kept none, and read none at this confidence
    /// or more, is read once more with a local threshold and not retried further (see `read`).
    /// `SHELFSCAN_BLANK=off` retries it every way; a number sets the confidence.
    static let blankConfidence: Double? = {
        let v = ProcessInfo.processInfo.environment["SHELFSCAN_BLANK"]
        return v == "off" ? nil : Double(v ?? "30") ?? 30
    }()

    /// `SHELFSCAN_SPOILT=any`: a well-read spine's band is read again in every direction a line
    /// was dropped in, not only a sure line's (for measuring).
    static let anySpoilt = ProcessInfo.processInfo.environment["SHELFSCAN_SPOILT"] == "any"

    private func read(_ sized: PixImage, turns: [Int], single: Bool, region: TextRegion, factor: Double,
                      offset: (Double, Double), background: UInt32, engine: TesseractEngine,
                      thresholding: Thresholding, tag: String = "", page: PageLayout? = nil, resolution: Int? = nil,
                      essential: Bool = false,
                      onDroppedLine: ((Int) -> Void)? = nil, onPage: ((Int, Double) -> Void)? = nil) throws(ShelfScanError) -> [ReadLine] {
        let (offsetX, offsetY) = offset
        let pad = Self.pad
        var lines: [ReadLine] = []
        for turns in turns {
            if single, lines.contains(where: { $0.confidence >= 85 }) { break }
            if !essential, budget?.isSpent == true { break }
            let turned = try sized.rotated(quarterTurns: turns).padded(by: pad, gray: background)
            let t0 = ContinuousClock.now
            let cpu0 = budget == nil ? 0 : ReadBudget.threadCPU()
            let inv0 = Self.traceReads ? TesseractEngine.lineInversionCounts : (lines: 0, gated: 0, inverted: 0)
            let page = try engine.recognize(turned, layout: page ?? (region.layout == .cover ? .auto : .block), thresholding: thresholding,
                                            deadline: region.layout == .cover ? nil : readDeadline, resolution: resolution)
            budget?.charge(ReadBudget.threadCPU() &- cpu0)
            onPage?(page.lines.count, page.lines.map(\.confidence).max() ?? 0)
            if Self.traceReads {
                let inv = TesseractEngine.lineInversionCounts
                FileHandle.standardError.write(Data("READ@\(Int(Self.traceStart.millisecondsElapsed - t0.millisecondsElapsed)) r\(region.row)-\(region.index) q\(turns) \(thresholding == .global ? "global" : "\(thresholding)")\(tag) \(turned.width)x\(turned.height) \(String(format: "%.0f", t0.millisecondsElapsed)) ms lines \(page.lines.count) best \(Int(page.lines.map(\.confidence).max() ?? 0)) inv \(inv.inverted - inv0.inverted)/\(inv.lines - inv0.lines) gated \(inv.gated - inv0.gated)\n".utf8))
            }
            if let folder = Self.debugFolder {
                let text = page.lines.map { "\(Int($0.confidence)) \($0.text)" }.joined(separator: " | ")
                let name = "r\(region.row)-\(region.index)-q\(turns)\(thresholding == .global ? "" : "-\(thresholding)")\(tag)"
                try? turned.writePNG(to: "\(folder)/\(name).png")
                try? Data("\(region.box) lean \(region.lean) scale \(factor)\n\(text)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name).txt"))
            }
            /// Back from the turned, padded, scaled crop to the photo.
            func inPhoto(_ words: [OCRWord]) -> BoundingBox {
                let x0w = words.map(\.box.x).min()!, y0w = words.map(\.box.y).min()!
                let x1w = words.map { $0.box.x + $0.box.width }.max()!, y1w = words.map { $0.box.y + $0.box.height }.max()!
                let corners = [(x0w, y0w), (x1w, y1w)].map { (x, y) -> (Double, Double) in
                    let (ux, uy) = Self.unturn(x: Double(x - pad), y: Double(y - pad), turns: turns,
                                               width: Double(sized.width), height: Double(sized.height))
                    return (ux / factor - offsetX + Double(region.box.x), uy / factor - offsetY + Double(region.box.y))
                }
                let x0 = min(corners[0].0, corners[1].0), x1 = max(corners[0].0, corners[1].0)
                let y0 = min(corners[0].1, corners[1].1), y1 = max(corners[0].1, corners[1].1)
                return BoundingBox(x: Int(x0), y: Int(y0), width: max(1, Int(x1 - x0)), height: max(1, Int(y1 - y0)))
            }
            for raw in page.lines {
                // Words Tesseract is unsure of are mostly spine edges, ornaments and pictures
                // read as letters: a line is its confident words.
                let words = raw.words.filter { w in
                    w.confidence >= minimumWordConfidence && w.text.contains { $0.isLetter || $0.isNumber }
                }
                let letters = words.reduce(0) { $0 + $1.text.filter(\.isLetter).count }
                let weight = words.reduce(0.0) { $0 + Double($1.text.count) }
                let confidence = words.reduce(0.0) { $0 + $1.confidence * Double($1.text.count) } / max(1, weight)
                guard letters >= 2, confidence >= minimumConfidence else {
                    // Letters on the spine itself, read badly: a neighbour's sliver may have spoilt them.
                    let seen = raw.words.reduce(0) { $0 + $1.text.filter(\.isLetter).count }
                    if seen >= 4, region.holds(inPhoto(raw.words)) { onDroppedLine?(turns) }
                    continue
                }
                let line = (text: words.map(\.text).joined(separator: " "), confidence: confidence)
                let box = inPhoto(words)
                let cropHeight = words.map { $0.box.y + $0.box.height }.max()! - words.map(\.box.y).min()!
                lines.append(ReadLine(text: line.text, confidence: line.confidence, box: box,
                                      textHeight: Double(cropHeight) / factor, quarterTurns: turns,
                                      readingConfidence: raw.confidence, wordConfidences: words.map(\.confidence)))
            }
        }
        return lines
    }

    /// The reading with a local threshold: `usual` (the photo's usual direction once it has
    /// one), `both` directions, or `off` (`SHELFSCAN_LOCAL`, for measuring). Real shelves,
    /// deadline off (2026-11-25): off 343 of 615 found (23 wrongly) for 28% less CPU than
    /// both, 366 (21); usual 365 (23) for 17% less CPU than both, the 12 MP shelf 12% faster.
    /// Left out: only on spines with letters seen (a line kept or dropped), 361 (20), 13% less.
    static let localRetry = ProcessInfo.processInfo.environment["SHELFSCAN_LOCAL"] ?? "usual"
    /// `SHELFSCAN_FINE_WHEN=always`: the narrow-window reading on every spine still read as
    /// nothing, letters dropped on it or not (for measuring).
    static let fineEverywhere = ProcessInfo.processInfo.environment["SHELFSCAN_FINE_WHEN"] == "always"

    /// When the first trace line was written: reads and passes are traced at their start from it.
    static let traceStart = ContinuousClock.now
    /// `SHELFSCAN_TRACE_READS=1`: every recognition on stderr (region, turn, threshold, size,
    /// milliseconds, lines, best confidence), to see where OCR time goes.
    static let traceReads = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_READS"] != nil
    /// `SHELFSCAN_TRACE_READS=letters`: `PIECES` lines list every letter's box, not only their count.
    static let traceLetters = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_READS"] == "letters"

    /// `SHELFSCAN_DEBUG_REGIONS=DIR`: every crop as read, with what was read (development aid).
    static let debugFolder = ProcessInfo.processInfo.environment["SHELFSCAN_DEBUG_REGIONS"]

    /// How much to scale the crop: a spine's text is a fraction of its thickness, so the
    /// thickness (the typical one of the row when the region holds several spines) sets the scale.
    func scale(for region: TextRegion, width: Int, height: Int) -> Double {
        let across: Double
        switch region.layout {
        case .spine: across = min(Double(width), region.typicalThickness * 1.3)
        case .lyingSpine: across = min(Double(height), region.typicalThickness * 1.3)
        case .cover:
            // Covers: the long side to about 1600 px keeps large titles under Tesseract's limit.
            return min(1.0, 1600 / Double(max(width, height)))
        }
        // Text fills roughly a third of a spine's thickness (title beside author, or one big line).
        let factor = targetTextHeight / max(8, across * 0.4)
        return min(Self.maximumScale, max(0.2, factor))
    }

    /// Spine crops are scaled up at most this much. Small photos' thin spines ask for more, but
    /// at 4 the real shelves found 297 of 615 books instead of 301 (2026-11-25, deadline off):
    /// letters a few pixels high only blur more.
    static let maximumScale = 3.0

    /// Where a point of the image turned by `turns` quarter turns clockwise lies in the unturned
    /// one of size `width` x `height`.
    static func unturn(x: Double, y: Double, turns: Int, width: Double, height: Double) -> (Double, Double) {
        switch ((turns % 4) + 4) % 4 {
        case 1: return (y, height - x)           // clockwise: (x, y) -> (h - y, x)
        case 2: return (width - x, height - y)
        case 3: return (width - y, x)            // anticlockwise: (x, y) -> (y, w - x)
        default: return (x, y)
        }
    }

    /// Where lines read in different directions cover the same ink, the reading Tesseract was
    /// surer of as a whole wins (not the one with the surest surviving words). The same ink: the
    /// surer line's box covers half of the other's. A speck
    /// read across a spine ("ae" at 76) does not drop the title read along it ("THE BELL JAR"
    /// at 74, the 12 MP shelf's one book missed until the thirty-second session): real shelves
    /// 462 / 478 -> 463 / 479 found / returned.
    ///
    /// `usual`: the way most of the photo's spines read, whose readings count `usualBonus` more
    /// (a spine's title read at 57 loses to the same ink read upside down at 60 otherwise).
    /// `covering` false: lines clash wherever they share half the smaller box (the rule before
    /// the thirty-second session, `SHELFSCAN_CLASH=smaller`).
    static func keepBest(_ lines: [ReadLine], usual: Set<Int> = [], bonus: Double = usualBonus,
                         covering: Bool = clashCovers) -> [ReadLine] {
        func weight(_ line: ReadLine) -> Double { line.readingConfidence + (usual.contains(line.quarterTurns) ? bonus : 0) }
        let ordered = lines.sorted { weight($0) > weight($1) }
        var kept: [ReadLine] = []
        for line in ordered {
            // Covering half of the line's box, the surer one shares half the smaller box too.
            let clash = kept.contains { other in
                other.quarterTurns != line.quarterTurns
                    && (covering ? covered(line.box, by: other.box) : overlap(line.box, other.box)) > 0.5
            }
            if !clash { kept.append(line) }
        }
        return kept
    }

    /// `SHELFSCAN_CLASH=smaller`: lines of two directions clash wherever they share half the
    /// smaller box (as before the thirty-second session), not only where the surer one covers
    /// half of the other.
    static let clashCovers = ProcessInfo.processInfo.environment["SHELFSCAN_CLASH"] != "smaller"

    /// How much of `a`'s area `b` covers (0-1).
    static func covered(_ a: BoundingBox, by b: BoundingBox) -> Double {
        Double(a.intersectionArea(b)) / Double(max(1, a.width * a.height))
    }

    /// Intersection over the smaller box's area.
    static func overlap(_ a: BoundingBox, _ b: BoundingBox) -> Double {
        Double(a.intersectionArea(b)) / Double(max(1, min(a.width * a.height, b.width * b.height)))
    }
}

/// Engines for one scanner, one per worker, created on first use and reused across images.
///
/// `@unchecked Sendable`: `idle` and `created` are only touched under `condition`'s lock, and an
/// engine is handed to one caller at a time.
public final class OCRWorkers: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [TesseractEngine] = []
    private var created = 0
    private var failure: ShelfScanError?
    public let tessdata: String?
    public let size: Int
    /// The model's name (`eng` for `eng.traineddata`).
    public let language: String
    private var secondLooked = false
    private var secondWorkers: OCRWorkers?

    /// `tessdata`: the model folder (nil: the default search, see `ModelLocator`).
    public init(tessdata: String? = nil, size: Int = ProcessInfo.processInfo.activeProcessorCount,
                language: String = ModelLocator.language) {
        self.tessdata = tessdata
        self.size = max(1, size)
        self.language = language
    }

    /// Engines with the second model (`ModelLocator.secondLanguage`, read where the first
    /// reading named nothing), as many as these; nil when no folder searched holds it.
    public var second: OCRWorkers? {
        condition.lock()
        defer { condition.unlock() }
        if !secondLooked {
            secondLooked = true
            if let folder = ModelLocator.secondTessdata(explicit: tessdata) {
                secondWorkers = OCRWorkers(tessdata: folder, size: size, language: ModelLocator.secondLanguage)
            }
        }
        return secondWorkers
    }

    /// Starts loading one engine on another thread when none exists yet (a model takes about
    /// 50 ms of a core to load): the photo is decoded meanwhile, one core otherwise idle. A
    /// model that fails to load fails the first reading as it would have.
    public func prewarm() { preload(upTo: 1) }

    /// Starts loading, one after the other on one thread, every engine not loaded yet (`upTo`
    /// of them at most; the second model: 45-90 ms of a core each), for a core that would
    /// otherwise idle; each is idle once loaded. A model that fails to load fails the reading
    /// that needs it.
    func preload(upTo count: Int? = nil) {
        let wanted = min(size, count ?? size)
        condition.lock()
        let missing = created < wanted && failure == nil
        condition.unlock()
        guard missing else { return }
        DispatchQueue.global().async { [self] in
            while true {
                condition.lock()
                guard created < wanted, failure == nil else { condition.unlock(); return }
                created += 1
                condition.unlock()
                guard let engine = try? load() else { return }
                checkin(engine)
            }
        }
    }

    /// Engines loaded or being loaded, and those idle now (for tests).
    var engines: (loaded: Int, idle: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (created, idle.count)
    }

    /// Runs `body` with an engine nobody else holds meanwhile, waiting for one if all are busy.
    public func withEngine<T>(_ body: (TesseractEngine) throws(ShelfScanError) -> T) throws(ShelfScanError) -> T {
        let engine = try checkout()
        defer { checkin(engine) }
        return try body(engine)
    }

    private func checkout() throws(ShelfScanError) -> TesseractEngine {
        condition.lock()
        while true {
            if let failure { condition.unlock(); throw failure }
            if let engine = idle.popLast() { condition.unlock(); return engine }
            if created < size {
                created += 1
                condition.unlock()
                return try load()
            }
            condition.wait()
        }
    }

    /// A new engine (`created` counted already); a failure is kept for every later checkout.
    private func load() throws(ShelfScanError) -> TesseractEngine {
        do throws(ShelfScanError) {
            let folder = if let tessdata { tessdata } else { try ModelLocator.tessdata(explicit: nil) }
            let clock = ContinuousClock.now
            let engine = try TesseractEngine(tessdata: folder, language: language)
            if RegionReader.traceReads {
                FileHandle.standardError.write(Data("ENGINE \(language) @\(Int(RegionReader.traceStart.millisecondsElapsed - clock.millisecondsElapsed)) \(Int(clock.millisecondsElapsed)) ms\n".utf8))
            }
            return engine
        } catch {
            condition.lock()
            failure = error
            condition.broadcast()
            condition.unlock()
            throw error
        }
    }

    private var photos = 0

    /// A photo is being scanned with these engines (`ShelfScanner`), until `endPhoto`.
    public func beginPhoto() { condition.lock(); photos += 1; condition.unlock() }
    public func endPhoto() { condition.lock(); photos -= 1; condition.unlock() }

    /// Whether at most one photo is being scanned with these engines: an idle engine is then an
    /// idle core (with two photos at once, the other's decoding and matching use it).
    public var oneAtATime: Bool { condition.lock(); defer { condition.unlock() }; return photos <= 1 }

    /// An engine nobody holds, without waiting or loading one; nil if all are held (for work
    /// that may wait: `PassAhead`). Handed back by `giveBack`.
    func borrowIdle() -> TesseractEngine? {
        condition.lock()
        defer { condition.unlock() }
        return idle.popLast()
    }

    /// An engine from `borrowIdle`, handed back.
    func giveBack(_ engine: TesseractEngine) { checkin(engine) }

    private func checkin(_ engine: TesseractEngine) {
        condition.lock()
        idle.append(engine)
        condition.signal()
        condition.unlock()
    }
}

/// A region of one photo, by its row and place (what the per-photo watches below remember).
struct RegionKey: Hashable {
    let row: Int
    let index: Int
    init(_ region: TextRegion) { row = region.row; index = region.index }
}

/// Which rows of one photo's hedge regions (`TextRegion.hedge`, its losing orientation) have
/// held a book's word yet (`RegionReader.confirms`), and which hedges were read only once before
/// their row did (to be read again in full). A row of the losing orientation is one band of the
/// photo (a pile's books lie in one): a word held in one band says nothing of the others.
/// `SHELFSCAN_HEDGE_ROWS=photo`: one word holds every row, as before the thirty-third session.
/// `@unchecked Sendable`: state only under `lock`.
public final class HedgeWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var heldRows = Set<Int>()
    private var once = Set<RegionKey>()

    public init() {}

    static let wholePhoto = ProcessInfo.processInfo.environment["SHELFSCAN_HEDGE_ROWS"] == "photo"

    /// What `row` is remembered by: itself, or one key for every row under `wholePhoto`.
    private static func key(_ row: Int) -> Int { wholePhoto ? -1 : row }

    /// A hedge of `row` read a book's word surely.
    func hold(row: Int) {
        lock.lock()
        heldRows.insert(Self.key(row))
        lock.unlock()
    }

    /// Whether any row has held.
    public var held: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !heldRows.isEmpty
    }

    /// Whether `row`'s hedges have held.
    public func holds(row: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return heldRows.contains(Self.key(row))
    }

    /// True (and `region` remembered) when its row has not held: `region` is read once only.
    func readOnce(_ region: TextRegion) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !heldRows.contains(Self.key(region.row)) else { return false }
        once.insert(RegionKey(region))
        return true
    }

    /// True when `region` was read only once (by `readOnce`).
    public func wasReadOnce(_ region: TextRegion) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return once.contains(RegionKey(region))
    }
}

/// The regions of one photo whose first reading saw no letter on them (`RegionReader.read`):
/// the retries leave them too. `@unchecked Sendable`: state only under `lock`.
public final class LetterlessRegions: @unchecked Sendable {
    private let lock = NSLock()
    private var keys = Set<RegionKey>()

    public init() {}

    func add(_ region: TextRegion) {
        lock.lock()
        keys.insert(RegionKey(region))
        lock.unlock()
    }

    public func contains(_ region: TextRegion) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return keys.contains(RegionKey(region))
    }
}

/// Which way the confident lines of one photo read so far. Shelves are usually consistent
/// (top to bottom in English-speaking countries, bottom to top in most of Europe), so the
/// majority direction is tried first. Where a region's own letters said which way up they
/// stand (`LetterBaseline`), that way stands for it instead. `@unchecked Sendable`: `counts`
/// and `guesses` are only touched under `lock`.
public final class DirectionVotes: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]
    private var guesses: [RegionKey: Int] = [:]

    /// The way `region`'s letters stand, as its reading measured it (nil: they did not say).
    func note(_ turns: Int?, for region: TextRegion) {
        lock.lock()
        guesses[RegionKey(region)] = turns
        lock.unlock()
    }

    /// New votes, none cast yet, that know the regions' letters' ways noted here (for the passes
    /// after matching, which count the photo's sure lines afresh).
    func guessesOnly() -> DirectionVotes {
        let fresh = DirectionVotes()
        lock.lock()
        fresh.guesses = guesses
        lock.unlock()
        return fresh
    }

    public init() {}

    func add(_ turns: Int) {
        lock.lock()
        counts[turns, default: 0] += 1
        lock.unlock()
    }

    /// The way `region`'s letters stand, where they said; else the photo's usual direction among
    /// `region`'s, alone; all of them before any vote.
    func usualTurns(of region: TextRegion) -> [Int] {
        lock.lock()
        let guess = Self.letterGuesses ? guesses[RegionKey(region)] : nil
        lock.unlock()
        return Self.oneWay(of: region.quarterTurns, guess: guess, usual: preferred(among: region.quarterTurns))
    }

    /// The rule both the passes and a reading's retries follow, over `turns`: the way the
    /// letters stand (`guess`) where it is one of them; else the photo's `usual` direction
    /// where it is one of them, alone; else all of them.
    static func oneWay(of turns: [Int], guess: Int?, usual: Int?) -> [Int] {
        if let guess, turns.contains(guess) { return [guess] }
        guard let usual, turns.contains(usual) else { return turns }
        return [usual]
    }

    /// `SHELFSCAN_BASELINE_PASSES=off`: the later passes take the photo's usual direction even
    /// where a region's letters said otherwise (for measuring).
    static let letterGuesses = ProcessInfo.processInfo.environment["SHELFSCAN_BASELINE_PASSES"] != "off"

    /// The direction most read so far among `turns`; nil before any vote. Ties favour the first.
    func preferred(among turns: [Int]) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        let scored = turns.map { ($0, counts[$0] ?? 0) }
        guard let best = scored.max(by: { $0.1 < $1.1 }), best.1 > 0 else { return nil }
        return best.0
    }
}


/// The crops `RegionReader.prepare` made for the photo being read, by region and the reader's
/// settings that shape them: the passes after the first reading prepare the same unnamed spines
/// a dozen times (cut, grayed, turned upright, scaled: 3% of the 12 MP shelf's CPU). Only the
/// crops made between `keepFromNow` and `clear` (the passes'), up to `limit` bytes (kept without
/// a limit, the real shelves' peak memory went from 446 to 683 MB; at 48 MB, 519 MB; the 12 MP
/// shelf keeps 40 crops, 8.6 MB), and for one photo at a time: the photo is held meanwhile, so
/// another one cannot take its address. By default the limit is 24 MB or the photo's own size
/// decoded (4 bytes a pixel, 48 MB at 12 MP), whichever is more: a big photo's full-resolution
/// crops are big (2 MP for each leaning spine of chris1, 12 MP), and at 24 MB they were cut,
/// grayed and turned upright again for every pass (chris1 11.95 -> 11.31 s, +32 MB at its
/// peak of 336 MB; gardening 8.44 -> 8.19 s, +11 MB; 2026-11-28, thirty-fourth session).
/// `SHELFSCAN_CROPS_MB=N` sets the limit (0: none kept).
/// `@unchecked Sendable`: every stored property is only touched under `lock`.
final class PreparedCrops: @unchecked Sendable {
    struct Key: Hashable {
        let box: BoundingBox
        let lean: Double
        let band: [Double]
        let layout: TextRegion.Layout
        let typical: Double
        let leastTurn: Double
        let darkest: Bool
        let stretch: Bool
        let grayPadding: Bool
        let target: Double
    }

    private let lock = NSLock()
    private var photo: PixImage?
    private var crops: [Key: RegionReader.Prepared] = [:]
    private var keeping = false
    /// The bytes of the crops kept; none is kept past `limit(for:)`.
    private var bytes = 0
    /// nil: `leastLimit` or the photo's size decoded, whichever is more.
    let limit: Int?
    static let defaultLimit = Int(ProcessInfo.processInfo.environment["SHELFSCAN_CROPS_MB"] ?? "").map { $0 << 20 }
    static let leastLimit = 24 << 20

    init(limit: Int? = PreparedCrops.defaultLimit) { self.limit = limit }

    /// The bytes of crops kept for `image`.
    func limit(for image: PixImage) -> Int {
        limit ?? max(Self.leastLimit, image.width * image.height * 4)
    }

    /// Crops made from now on are kept.
    func keepFromNow() {
        lock.lock()
        keeping = true
        lock.unlock()
    }

    /// Every crop let go, and none kept until `keepFromNow`.
    func clear() {
        lock.lock()
        if RegionReader.traceReads { FileHandle.standardError.write(Data("CROPS \(crops.count) kept, \(bytes >> 10) KB\n".utf8)) }
        keeping = false
        photo = nil
        crops = [:]
        bytes = 0
        lock.unlock()
    }

    /// Every crop let go but those of `keys` (the regions the passes will read again); crops
    /// are still kept from now on.
    func keepOnly(_ keys: Set<Key>) {
        lock.lock()
        defer { lock.unlock() }
        crops = crops.filter { keys.contains($0.key) }
        bytes = crops.values.reduce(0) { $0 + Self.size(of: $1) }
    }

    /// The bytes `crop` holds (its sized picture, and the upright one when that is another).
    static func size(of crop: RegionReader.Prepared) -> Int {
        let pictures = crop.upright.map { $0 === crop.sized ? [crop.sized] : [crop.sized, $0] } ?? [crop.sized]
        return pictures.reduce(0) { $0 + $1.width * $1.height * $1.depth / 8 }
    }

    /// The crop kept for `key` of `image`, if any.
    func crop(_ key: Key, of image: PixImage) -> RegionReader.Prepared? {
        lock.lock()
        defer { lock.unlock() }
        return photo === image ? crops[key] : nil
    }

    /// Keeps `crop` for `key` of `image` while keeping and within the limit; another photo's
    /// crops are let go first.
    func keep(_ crop: RegionReader.Prepared, _ key: Key, of image: PixImage) {
        lock.lock()
        defer { lock.unlock() }
        guard keeping else { return }
        if photo !== image {
            photo = image
            crops = [:]
            bytes = 0
        }
        let size = Self.size(of: crop)
        guard bytes + size <= limit(for: image) else { return }
        bytes += size
        crops[key] = crop
    }
}
