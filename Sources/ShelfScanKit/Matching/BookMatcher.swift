import Foundation

/// One line of OCR text.
public struct TextLine: Sendable {
    public var text: String
    /// Tesseract's confidence, 0-100.
    public var confidence: Double
    /// Text height in pixels.
    public var height: Double
    /// Each word's confidence (the words of `text` split at spaces), when known.
    public var wordConfidences: [Double]?
    /// Another reading of ink an earlier line of the region was read from (a second pass over
    /// the spine): its words are evidence, but what it does not explain hardly counts.
    public var reread: Bool

    public init(text: String, confidence: Double = 90, height: Double = 20, wordConfidences: [Double]? = nil, reread: Bool = false) {
        self.text = text
        self.confidence = confidence
        self.height = height
        self.wordConfidences = wordConfidences
        self.reread = reread
    }
}

/// The lines read from one spine (or a few neighbouring lines matched as one book), in any order.
public struct RegionText: Sendable {
    public var lines: [TextLine]
    public init(lines: [TextLine]) { self.lines = lines }
}

/// A book a region's text may be.
public struct BookMatch: Sendable {
    public let book: Book
    /// 0-1, probability-like: 0.8 and above confident, 0.6-0.8 plausible, below 0.6 not a book.
    public let score: Double
    /// How much of the title (its core words, weighted by length) the spine shows, 0-1.
    public let titleScore: Double
    /// How well the best-matching author's name agrees, 0-1; nil when the book has no authors.
    public let authorScore: Double?
    /// The spine words that matched the title and author, normalised, in reading order.
    public let matchedText: String
}

/// Finds the books a spine's OCR text names, among the library's books and its reference
/// catalogue: a trigram shortlist, then each candidate scored by aligning its title and author
/// words with the spine's words.
///
/// Scores are comparable between groups of one to four lines: an extra line that the book does
/// not explain can only lower a score.
public final class BookMatcher: Sendable {
    let index: BookIndex
    /// Matches scoring below this are not returned.
    public static let floor = 0.3
    /// Candidates rescored per region.
    static let shortlistSize = 30
    /// A co-author's name word read this well is explained by the book.
    static let sureNameCredit = 0.8
    /// How much of the title a spine leaves unread its author's name makes up for: up to
    /// `authorBonus` for the surname (any name word of 3+ letters) read, and `wholeNameBonus`
    /// more for the whole name ("Bright Boy" beside "TOM CUTLER" is *211 Things a Bright Boy Can
    /// Do*; a common surname alone says less). With the whole-name share (0 before 2026-11-24)
    /// the real shelves found 252 of 615 books instead of 239, for one more returned wrongly.
    static let authorBonus = 0.3
    /// Title coverage a subtitle entry needs to name its book.
    static let subtitleCoverage = 0.85
    static let wholeNameBonus = 0.3

    /// `SHELFSCAN_IMPRINT_READ=off`: only titles made wholly of publishers' words need their
    /// author's name, not titles of which only such words were read, as before the thirty-sixth
    /// session.
    static let imprintReadWords = ProcessInfo.processInfo.environment["SHELFSCAN_IMPRINT_READ"] != "off"

    /// `SHELFSCAN_LONE_DIGITS=count`: a lone digit read beside a book's author's full name counts
    /// as evidence for its title, as before the thirty-sixth session.
    static let loneDigits = ProcessInfo.processInfo.environment["SHELFSCAN_LONE_DIGITS"] != "count"

    /// `SHELFSCAN_JOINED_NAMES=off`: an author's name run together ("EricNewby") is not read as the name.
    static let joinedNames = ProcessInfo.processInfo.environment["SHELFSCAN_JOINED_NAMES"] != "off"

    /// Every book in `library`, owned and reference-catalogue rows alike; the index read from
    /// `cache` when it holds these very books (and written there when not).
    public init(library: LibraryDatabase, cache: IndexCache? = nil) throws(ShelfScanError) {
        let books = try library.matchableBooks()
        if let cache, let path = library.path {
            index = cache.index(of: books, libraryPath: path)
        } else {
            index = BookIndex(books: books)
        }
    }

    public init(books: [Book]) {
        index = BookIndex(books: books)
    }

    init(index: BookIndex) {
        self.index = index
    }

    /// Number of books matched against.
    public var count: Int { index.distinctBooks }

    /// The books `region` may be, best first, each above `floor`; one entry per distinct book
    /// (an owned copy wins over a catalogue row of the same title and author).
    public func matches(for region: RegionText, limit: Int = 5) -> [BookMatch] {
        let spine = Spine(region)
        guard !spine.words.isEmpty, spine.totalWeight > 0 else { return [] }
        let (candidates, ownedAfter) = index.shortlist(words: spine.words.map(\.scalars), limit: Self.shortlistSize,
                                                       ownedLimit: Self.ownedHolding ? Self.ownedShortlistSize : 0)
        var cache = CreditCache(spine: spine, memo: index.creditMemo)
        let names = fullNames(in: spine)
        var scored: [(match: BookMatch, position: Int)] = []
        // The reader's books scoring under the floor (and, below, some past the shortlist), for
        // `preferOwnedHolder`.
        var ownedBelow: [BookMatch] = []
        for b in candidates {
            guard let m = score(book: b, spine: spine, names: names, cache: &cache) else { continue }
            if m.score >= Self.floor { scored.append((m, b)) } else if m.book.owned { ownedBelow.append(m) }
        }
        scored.sort {
            if $0.match.score != $1.match.score { return $0.match.score > $1.match.score }
            if $0.match.book.owned != $1.match.book.owned { return $0.match.book.owned }
            return $0.position < $1.position
        }
        // One entry per work (title and author's surname). Where the reader owns the work, the
        // entry is their copy, with the best score any edition got: a catalogue edition whose
        // series words the spine also shows ("... (Hercule Poirot, #4)") must not report a book
        // on the reader's shelf as not in their library.
        var owned: [String: Int] = [:]
        for (i, (m, b)) in scored.enumerated() where m.book.owned && owned[index.bookKeys[b]] == nil {
            owned[index.bookKeys[b]] = i
        }
        var seen = Set<String>()
        var out: [BookMatch] = []
        var firstEntry: Int?
        for (m, b) in scored where seen.insert(index.bookKeys[b]).inserted {
            if !m.book.owned, let i = owned[index.bookKeys[b]] {
                out.append(BookMatch(book: scored[i].match.book, score: m.score, titleScore: m.titleScore,
                                     authorScore: m.authorScore, matchedText: m.matchedText))
            } else {
                out.append(m)
            }
            if firstEntry == nil { firstEntry = b }
        }
        if Self.ownedHolding, let first = out.first, !first.book.owned, let c = firstEntry {
            // The reader's books past the shortlist are scored only when their title words hold
            // the catalogue book's core words: at 100,000 books, scoring them all doubled a
            // spine's matching time.
            let needed = index.core[c]
            for b in ownedAfter where needed.allSatisfy({ index.core[b].contains($0) || index.extra[b].contains($0) }) {
                if let m = score(book: b, spine: spine, names: names, cache: &cache) { ownedBelow.append(m) }
            }
            Self.preferOwnedHolder(&out, below: ownedBelow)
        }
        return Array(out.prefix(limit))
    }

    /// Own books looked at past the `shortlistSize` best of all (`BookIndex.shortlist`).
    static let ownedShortlistSize = Int(ProcessInfo.processInfo.environment["SHELFSCAN_OWNED_SHORTLIST"] ?? "") ?? 10
    /// `SHELFSCAN_OWNED_HOLDING=off`: a catalogue title read whole inside an owned book's title
    /// names the catalogue's book (`preferOwnedHolder`; for measuring).
    static let ownedHolding = ProcessInfo.processInfo.environment["SHELFSCAN_OWNED_HOLDING"] != "off"

    /// Where the best match is a catalogue book whose title (its core words and volume numbers)
    /// lies whole inside the title of exactly one of the reader's own books, and every word read
    /// for it was read for the reader's book too, the reader's book goes first at its score: the
    /// words read say no more for one than for the other, and the reader's shelf holds the
    /// reader's books (as in a tie, `refusingTies`). A travel guide's spine reads "MALLORCA" big
    /// and its series name ("Top 10") small or as a logo: the catalogue's *Mallorca* matches it
    /// whole, the reader's *Top 10 Mallorca* in part; "HITLER" alone is the catalogue's *Hitler:
    /// 1936-1945* and as much the reader's *Hitler 1936-1945: Nemesis*. An author read for the
    /// catalogue's book must have been read for the reader's: a name says which one it is.
    /// `below`: the reader's books that scored under `floor` or were looked at past the
    /// shortlist (they may hold the title all the same).
    static func preferOwnedHolder(_ out: inout [BookMatch], below: [BookMatch]) {
        guard let first = out.first, !first.book.owned, out.contains(where: \.book.owned) || !below.isEmpty else { return }
        func words(_ book: Book) -> (needed: Set<String>, all: Set<String>) {
            let t = MatchText.rememberedTitle(book.title, subtitle: book.subtitle)
            return (Set(t.core + t.volume), Set(t.core + t.extra + t.volume))
        }
        let needed = words(first.book).needed
        let read = Set(first.matchedText.split(separator: " "))
        let holders = (out + below).filter { m in
            m.book.owned && needed.isSubset(of: words(m.book).all) && read.isSubset(of: Set(m.matchedText.split(separator: " ")))
        }
        guard holders.count == 1, let mine = holders.first else { return }
        // The catalogue's row goes: it stands for the reader's book here, and where another spine
        // takes that book, this one must not name it again under the catalogue's title (two
        // spines reading "HITLER": the reader's *Nemesis* and the catalogue's *Hitler: 1936-1945*).
        out.removeAll { ($0.book.owned && $0.book.id == mine.book.id && $0.book.title == mine.book.title) || $0.book == first.book }
        out.insert(BookMatch(book: mine.book, score: max(first.score, mine.score), titleScore: mine.titleScore, authorScore: mine.authorScore,
                             matchedText: mine.matchedText), at: 0)
    }

    // MARK: Scoring

    /// A region's words, with how much each would count against a book that does not explain it.
    struct Spine {
        struct Word { var scalars: [Unicode.Scalar]; var line: Int; var weight: Double; var confidence: Double }
        /// Comparable pieces: each word, and each two neighbouring words of a line run together
        /// (OCR splits words: "FIRE STARTER").
        struct Unit { var scalars: [Unicode.Scalar]; var first: Int; var count: Int }
        /// Words Tesseract was this sure of count fully against a book that does not explain them;
        /// unsurer ones (kept for the evidence they may give) count a tenth as much, so junk read
        /// beside a title ("rt I TS LEAVES", "F PERS SHOOTS 8") does not sink it. Real shelves: 228
        /// of 615 found counting them fully, 232 at 0.3, 233 at 0.1, with the same 19 returned wrongly.
        static let sureWord = 40.0
        static let unsureTrust = 0.1
        static let joinLines = ProcessInfo.processInfo.environment["SHELFSCAN_JOIN_LINES"] != "off"
        static let joinedArticles = ["the", "el", "la", "le", "les", "los", "las", "els", "der", "die", "das", "het", "de"].map { Array($0.unicodeScalars) }
        var words: [Word] = []
        var units: [Unit] = []
        var totalWeight = 0.0

        init(_ region: RegionText) {
            for (l, line) in region.lines.enumerated() {
                // A line Tesseract doubted counts less against a book that does not explain it.
                let trust = (0.5 + 0.5 * min(1, max(0, line.confidence / 100))) * (line.reread ? Self.unsureTrust : 1)
                // Tesseract's words (the line's text split at spaces), each with its own doubt.
                let pieces = line.text.split(separator: " ", omittingEmptySubsequences: true)
                let sure = line.wordConfidences.flatMap { c in c.count == pieces.count ? c.map { $0 >= Self.sureWord } : nil }
                for (k, piece) in pieces.enumerated() {
                    let doubt = sure.map { $0[k] ? 1 : Self.unsureTrust } ?? 1
                    for w in MatchText.words(String(piece)) {
                        let scalars = Array(w.unicodeScalars)
                        var weight = BookIndex.evidence(w)
                        if MatchText.publisherWords.contains(w) { weight *= 0.3 }
                        // Consonant clusters and stray letters are logo and texture noise, not words.
                        if !scalars.contains(where: { "aeiouy0123456789".unicodeScalars.contains($0) }) || scalars.count <= 2 {
                            weight = min(weight, 1)
                        }
                        let confidence = line.wordConfidences.flatMap { $0.count == pieces.count ? min($0[k], line.confidence) : nil } ?? line.confidence
                        words.append(Word(scalars: scalars, line: l, weight: weight * trust * doubt, confidence: confidence))
                    }
                }
            }
            totalWeight = words.reduce(0) { $0 + $1.weight }
            for (i, w) in words.enumerated() {
                units.append(Unit(scalars: w.scalars, first: i, count: 1))
                // An article run into the next word ("THESHINING"): the word without it, too.
                for article in Self.joinedArticles where w.scalars.count >= article.count + 4 && w.scalars.starts(with: article) {
                    units.append(Unit(scalars: Array(w.scalars[article.count...]), first: i, count: 1))
                }
                if i + 1 < words.count, words[i + 1].line == w.line || (Self.joinLines && words[i + 1].line == w.line + 1) {
                    units.append(Unit(scalars: w.scalars + words[i + 1].scalars, first: i, count: 2))
                }
            }
        }
    }

    /// Credits of vocabulary words against every spine unit, computed once per region, and
    /// remembered for the index's other regions and passes (`CreditMemo`).
    struct CreditCache {
        let spine: Spine
        var byWord: [Int32: [Double]] = [:]
        let memo: CreditMemo?
        /// The spine's units' letters, once (each vocabulary word's row is worked out against them).
        let units: [[Unicode.Scalar]]
        let unitIDs: (generation: Int, ids: [Int32])

        init(spine: Spine, memo: CreditMemo? = nil) {
            self.spine = spine
            self.memo = CreditMemo.enabled ? memo : nil
            units = spine.units.map(\.scalars)
            unitIDs = self.memo?.ids(of: units) ?? (0, [])
        }

        mutating func credits(_ word: Int32, _ scalars: [Unicode.Scalar]) -> [Double] {
            if let known = byWord[word] { return known }
            let row = memo?.row(word: word, scalars: scalars, units: units, ids: unitIDs.ids, generation: unitIDs.generation)
                ?? units.map { WordSimilarity.credit(scalars, $0) }
            byWord[word] = row
            return row
        }
    }

    /// Whether the surname of one of book `b`'s authors (a name's last word; its first in
    /// "Surname, Given Names") was read surely, as a word of its own.
    func surnameRead(book b: Int, spine: Spine, cache: inout CreditCache) -> Bool {
        let raw = index.books[b].authors
        for (k, name) in index.authors[b].enumerated() {
            guard let last = name.last, let first = name.first else { continue }
            let w = k < raw.count && raw[k].contains(",") ? first : last
            let row = cache.credits(w, index.wordScalars[Int(w)])
            if row.indices.contains(where: { row[$0] >= Self.sureNameCredit && spine.units[$0].count == 1 }) { return true }
        }
        return false
    }

    /// Runs of two or three spine words, on one line, that spell an author's full name exactly
    /// (in any order), with that name's key.
    func fullNames(in spine: Spine) -> [(words: Range<Int>, name: [Int32])] {
        guard !index.fullNames.isEmpty else { return [] }
        let ids = spine.words.map { index.wordIDs[String(String.UnicodeScalarView($0.scalars))] }
        var found: [(words: Range<Int>, name: [Int32])] = []
        var i = 0
        while i < ids.count {
            var matched = false
            for n in [3, 2] where i + n <= ids.count && spine.words[i + n - 1].line == spine.words[i].line {
                let run = ids[i..<(i + n)].compactMap { $0 }
                if run.count == n, index.fullNames.contains(run.sorted()) {
                    found.append((i..<(i + n), run.sorted()))
                    i += n
                    matched = true
                    break
                }
                if Self.nearNames, let key = nearName(spine.words[i..<(i + n)].map(\.scalars), ids: Array(ids[i..<(i + n)])) {
                    found.append((i..<(i + n), key))
                    i += n
                    matched = true
                    break
                }
            }
            if !matched { i += 1 }
        }
        return found
    }

    /// The works the reader owns by the author whose full name `region` reads surely (Tesseract
    /// at `nameOnlyConfidence` or more on each of its words, `nameOnlyLetters` letters or more),
    /// and the name as read; nil when it reads no such name, or names of two such authors. A
    /// spine whose title was not read but whose author's was ("WASHINGTON IRVING" above an
    /// illegible title) is likely one of them (`TextStage.addOwnedWorks`).
    public func ownedWorks(for region: RegionText) -> (books: [Book], name: String)? {
        let spine = Spine(region)
        var found: (name: [Int32], read: String)?
        // A name on one line, spelt nearly; or each word exactly, on lines of its own ("BEN" above
        // "HOROWITZ" across a hardback).
        let ids = spine.words.map { index.wordIDs[String(String.UnicodeScalarView($0.scalars))] }
        var names = fullNames(in: spine).map { (words: Array($0.words), name: $0.name) }
        for id in Set(ids.compactMap { $0 }) {
            for name in index.namesWithWord[id] ?? [] where index.ownedWorks[name] != nil && !names.contains(where: { $0.name == name }) {
                let at = name.compactMap { w in ids.firstIndex(of: w) }
                if at.count == name.count { names.append((at, name)) }
            }
        }
        for (words, name) in names where index.ownedWorks[name] != nil {
            let read = words.map { spine.words[$0] }
            guard read.allSatisfy({ $0.confidence >= Self.nameOnlyConfidence }),
                  name.reduce(0, { $0 + index.wordScalars[Int($1)].count }) >= Self.nameOnlyLetters else { continue }
            guard found == nil || found?.name == name else { return nil }
            found = (name, read.map { String(String.UnicodeScalarView($0.scalars)) }.joined(separator: " "))
        }
        return found.map { f in (index.ownedWorks[f.name]!.map { index.books[Int($0)] }, f.read) }
    }

    static let nameOnlyConfidence = 60.0
    static let nameOnlyLetters = 7

    /// The full name of as many words as `run` that one of its words spells exactly and the others
    /// nearly (a letter misread: "Agatha Christle"), nil without one. Words of three letters or
    /// fewer must be exact (`WordSimilarity.credit`).
    func nearName(_ run: [[Unicode.Scalar]], ids: [Int32?]) -> [Int32]? {
        for id in Set(ids.compactMap { $0 }) {
            for name in index.namesWithWord[id] ?? [] where name.count == run.count {
                // Each name word read by a word of its own.
                var used = [Bool](repeating: false, count: run.count)
                let spelt = name.allSatisfy { w in
                    let word = index.wordScalars[Int(w)]
                    guard let k = run.indices.first(where: { k in
                        !used[k] && (ids[k] == w || WordSimilarity.credit(word, run[k]) >= Self.nearNameCredit)
                    }) else { return false }
                    used[k] = true
                    return true
                }
                if spelt { return name }
            }
        }
        return nil
    }

    /// Letters of evidence a spine's reading gives by being exactly a title, all of it, and
    /// nothing else (read at `wholeConfidence` or better, the unread rest under
    /// `wholePrecision`), when no other work has that title: a four-letter title then passes 0.6.
    static let wholeTitleLetters = Double(ProcessInfo.processInfo.environment["SHELFSCAN_WHOLE_LETTERS"] ?? "") ?? 1.5
    static let wholePrecision = Double(ProcessInfo.processInfo.environment["SHELFSCAN_WHOLE_PRECISION"] ?? "") ?? 0.95
    static let wholeConfidence = Double(ProcessInfo.processInfo.environment["SHELFSCAN_WHOLE_CONFIDENCE"] ?? "") ?? 85
    /// `SHELFSCAN_WHOLE_TITLES=off`: a short title read alone needs its author, as before 2026-11-25.
    static let wholeTitles = ProcessInfo.processInfo.environment["SHELFSCAN_WHOLE_TITLES"] != "off"

    /// How near a word must be to an author's name word to be read as it (`nearName`).
    static let nearNameCredit = 0.8

    /// `SHELFSCAN_NEAR_NAMES=off`: author names are recognised on spines only spelt exactly.
    static let nearNames = ProcessInfo.processInfo.environment["SHELFSCAN_NEAR_NAMES"] != "off"

    /// Whether a spine reads a title all but one run of its words at most, the rest in the title's
    /// order and surely (credit `partialRunCredit` or more), two words of substance among them
    /// (`partialRunEvidence` letters of evidence in all): "THE SAINT SEES IT THRO", "JUST THE
    /// PLANET?" (*How Much for Just the Planet?*), "Devon Cornwall" (*The Rough Guide to Devon &
    /// Cornwall*), "Spiegel van Zuid-West Nederland" (*Spiegel van steden, dorpen en landschappen
    /// in Zuid-West Nederland*). Spines print titles shortened, and OCR loses a line's end or a
    /// word in small print. Not "SECRETS OF THE" (*Secrets of the Vine*), nor "ON A BOOTSTRAP":
    /// one word of substance is the one-word trap again. `credits`: each core title word's
    /// credit, `readAt`: the spine word it was read from, `letters`: each title word's length,
    /// `evidence`: each title word's letters of evidence (1 for the commonest words).
    static func partialRun(credits: [Double], readAt: [Int?], letters: [Int], evidence: [Double]) -> Bool {
        guard credits.count >= 3 else { return false }
        let read = credits.indices.filter { credits[$0] >= partialRunCredit }
        let substance = read.filter { evidence[$0] > 1 }
        guard substance.count >= 2, substance.reduce(0, { $0 + evidence[$1] }) >= partialRunEvidence else { return false }
        // Words of one or two letters ("a", "of", "&") are often lost between the others.
        let unread = credits.indices.filter { credits[$0] < partialRunCredit && letters[$0] >= 3 }
        if let first = unread.first, let last = unread.last,
           credits[first...last].indices.contains(where: { credits[$0] >= partialRunCredit }) { return false }
        // In the title's order on the spine.
        let at = read.compactMap { readAt[$0] }
        return at.count == read.count && zip(at, at.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// `SHELFSCAN_PARTIAL_TITLES=off`: a title read all but a run of its words gets no credit for
    /// the order and sureness of what was read (`partialRun`).
    static let partialRuns = ProcessInfo.processInfo.environment["SHELFSCAN_PARTIAL_TITLES"] != "off"
    /// Measured on the real shelves (deadline off): without the rule 351 of 615 found, 374
    /// returned (23 wrongly); with 9 letters of evidence and precision 0.75, 364 / 385 / 21; with
    /// 7 and 0.65, 366 / 387 / 21. SampleImages 256 of 267 either way.
    static let partialRunBonus = Double(ProcessInfo.processInfo.environment["SHELFSCAN_PARTIAL_BONUS"] ?? "0.6") ?? 0.6
    static let partialRunCredit = 0.7
    static let partialRunEvidence = Double(ProcessInfo.processInfo.environment["SHELFSCAN_PARTIAL_EVIDENCE"] ?? "7") ?? 7
    static let partialRunPrecision = Double(ProcessInfo.processInfo.environment["SHELFSCAN_PARTIAL_PRECISION"] ?? "0.65") ?? 0.65
    /// `SHELFSCAN_SHORT_TITLES=any`: a title of three letters or fewer may be named beside a
    /// look-alike of its author's name.
    static let shortTitlesNeedNames = ProcessInfo.processInfo.environment["SHELFSCAN_SHORT_TITLES"] != "any"
    /// `SHELFSCAN_TITLE_NAMES=any`: a title that is a known author's full name needs no other author read.
    static let titleNames = ProcessInfo.processInfo.environment["SHELFSCAN_TITLE_NAMES"] != "any"
    /// What a series name's words (`BookIndex.seriesWords`) count for in a title's coverage.
    static let seriesShare = Double(ProcessInfo.processInfo.environment["SHELFSCAN_SERIES_SHARE"] ?? "") ?? 0.1

    /// Which of the title's core words spell one of its authors' full names (two or more words,
    /// each in the title, a possessive "King's" counting as "King"); nil when the title holds no
    /// full name of its author, or nothing but it (an autobiography titled with the name).
    static func ownNameWords(core: [Int32], authors: [[Int32]], words: [[Unicode.Scalar]]) -> [Bool]? {
        func same(_ titleWord: [Unicode.Scalar], _ nameWord: [Unicode.Scalar]) -> Bool {
            titleWord == nameWord || (titleWord.count == nameWord.count + 1 && titleWord.last == "s" && titleWord.starts(with: nameWord))
        }
        for name in authors where name.count >= 2 {
            var inName = [Bool](repeating: false, count: core.count)
            let whole = name.allSatisfy { n in
                var hit = false
                for (j, t) in core.enumerated() where same(words[Int(t)], words[Int(n)]) { inName[j] = true; hit = true }
                return hit
            }
            if whole, inName.contains(false) { return inName }
        }
        return nil
    }

    /// `names`: the full author names the spine spells (`fullNames(in:)`). Their words are that
    /// author's, so they are no evidence for the title of a book by someone else (a spine reading
    /// "JAMES PATTERSON" is not the novel "James"), nor, alone, for one of the author's own books
    /// whose title holds the name (a spine reading "STEPHEN KING" is not "Stephen King's N.").
    func score(book b: Int, spine: Spine, names: [(words: Range<Int>, name: [Int32])] = [],
               cache: inout CreditCache) -> BookMatch? {
        let core = index.core[b]
        guard !core.isEmpty else { return nil }
        let words = index.wordScalars
        var othersName = [Bool](repeating: false, count: spine.words.count)
        var ownName = [Bool](repeating: false, count: spine.words.count)
        if !names.isEmpty {
            let own = Set(index.authors[b].map { $0.sorted() })
            for n in names {
                for i in n.words { if own.contains(n.name) { ownName[i] = true } else { othersName[i] = true } }
            }
        }
        // Every (title piece, spine piece) pair worth anything, then the best first, each word once.
        var pairs: [(value: Double, credit: Double, title: Int, titleCount: Int, unit: Int)] = []
        for (j, w) in core.enumerated() {
            let row = cache.credits(w, words[Int(w)])
            let e = index.wordEvidence[Int(w)]
            for (u, c) in row.enumerated() where c > 0 && !othersName[spine.units[u].first] && !othersName[spine.units[u].first + spine.units[u].count - 1] {
                pairs.append((c * e, c, j, 1, u))
            }
        }
        // Two or three title words the OCR ran together ("HARRYPOTTER", "BLANDINGSTHEBLEST":
        // spine type is set tight).
        for n in 2...3 where core.count >= n {
            for j in 0...(core.count - n) {
                let joined = (j..<(j + n)).flatMap { words[Int(core[$0])] }
                for (u, unit) in spine.units.enumerated() where unit.count == 1 && unit.scalars.count >= joined.count - 2 && !othersName[unit.first] {
                    let c = WordSimilarity.credit(joined, unit.scalars)
                    if c > 0 {
                        let e = (j..<(j + n)).reduce(0.0) { $0 + index.wordEvidence[Int(core[$1])] }
                        pairs.append((c * e, c, j, n, u))
                    }
                }
            }
        }
        pairs.sort { $0.value > $1.value }
        var titleCredit = [Double](repeating: 0, count: core.count)
        var titleUsed = [Bool](repeating: false, count: core.count)
        var spineCredit = [Double](repeating: 0, count: spine.words.count)
        var spineUsed = [Bool](repeating: false, count: spine.words.count)
        // Some title evidence beyond the author's own name, or none at all.
        if ownName.contains(true) {
            // A lone digit is no evidence beyond the name: a smudge or a price read as "4" beside
            // "AGATHA CHRISTIE" named *4.50 from Paddington* at 0.95.
            let beyondName = pairs.contains { p in
                let unit = spine.units[p.unit]
                return !(unit.first..<(unit.first + unit.count)).allSatisfy { ownName[$0] }
                    && !(Self.loneDigits && unit.scalars.count == 1 && unit.scalars[0].properties.numericType != nil)
            }
            guard beyondName else { return nil }
        }
        // A title that spells its author's full name ("Stephen King's N.") is the author's name
        // on every spine of theirs, wherever the words stand: it needs a title word beyond it,
        // read as a word of its own or, surely, run together with a name word ("PACKER'SFLOWERS"),
        // but a word of one or two letters cannot be told that way ("KINGS" is not "King's N.").
        if let inName = index.titleNameWords[b],
           !pairs.contains(where: { p in
               let beyond = (p.title..<(p.title + p.titleCount)).filter { !inName[$0] }
               return !beyond.isEmpty
                   && (p.titleCount == 1 || (p.credit >= 0.8 && beyond.allSatisfy { words[Int(core[$0])].count >= 3 }))
           }) {
            return nil
        }
        // Where each title word was read on the spine (its first word), for `partialRun`.
        var readAt = [Int?](repeating: nil, count: core.count)
        for p in pairs {
            let unit = spine.units[p.unit]
            if (p.title..<(p.title + p.titleCount)).contains(where: { titleUsed[$0] }) { continue }
            if (unit.first..<(unit.first + unit.count)).contains(where: { spineUsed[$0] }) { continue }
            for j in p.title..<(p.title + p.titleCount) { titleUsed[j] = true; titleCredit[j] = p.credit; readAt[j] = unit.first }
            for i in unit.first..<(unit.first + unit.count) { spineUsed[i] = true; spineCredit[i] = p.credit }
        }
        var titleInfo = 0.0, titleTotal = 0.0, titleSure = 0.0
        let series = index.seriesWords[b]
        for (j, w) in core.enumerated() {
            let e = index.wordEvidence[Int(w)]
            // A series' name says which series, not which of its books: it counts little
            // towards covering the title, read or not.
            let share = j < series ? Self.seriesShare : 1
            titleInfo += share * e * titleCredit[j]
            titleSure += e * titleCredit[j] * index.titleWeight[Int(w)]
            titleTotal += share * e
        }
        guard titleInfo > 0 else { return nil }
        let coverage = titleInfo / titleTotal

        // The author: the name whose words the remaining spine words spell best.
        var authorScore: Double?
        var authorInfo = 0.0
        var authorWhole = 0.0
        var authorSpine: [(Int, Double)] = []
        var coauthorSpine: [(Int, Double)] = []
        // The best name read of an author who is not the person the title names.
        var otherThanTitle = 0.0
        for name in index.authors[b] {
            var info = 0.0, best = 0.0, total = 0.0
            var used: [(Int, Double)] = []
            for w in name where words[Int(w)].count >= 2 {
                total += index.wordEvidence[Int(w)]
                let row = cache.credits(w, words[Int(w)])
                var bestUnit = -1, bestCredit = 0.0
                for (u, c) in row.enumerated() where c > bestCredit && spine.units[u].count == 1 {
                    let i = spine.units[u].first
                    if !spineUsed[i], !used.contains(where: { $0.0 == i }) { bestUnit = i; bestCredit = c }
                }
                guard bestUnit >= 0 else { continue }
                if words[Int(w)].count >= 3 { best = max(best, bestCredit) }
                info += index.wordEvidence[Int(w)] * bestCredit
                used.append((bestUnit, bestCredit))
            }
            // A name the OCR ran together ("EricNewby"): all its words as one spine word.
            if Self.joinedNames, name.count >= 2, total > 0 {
                let joined = name.flatMap { words[Int($0)] }
                var bestUnit = -1, bestCredit = 0.0
                for unit in spine.units where unit.count == 1 && !spineUsed[unit.first] && unit.scalars.count >= joined.count - 2 {
                    let c = WordSimilarity.credit(joined, unit.scalars)
                    if c > bestCredit { bestUnit = unit.first; bestCredit = c }
                }
                if bestUnit >= 0, total * bestCredit > info {
                    info = total * bestCredit
                    best = bestCredit
                    used = [(bestUnit, bestCredit)]
                }
            }
            authorScore = max(authorScore ?? 0, best)
            if index.titleName[b].map({ name.sorted() != $0 }) ?? true { otherThanTitle = max(otherThanTitle, best) }
            if info > authorInfo { authorInfo = info; authorSpine = used; authorWhole = total > 0 ? info / total : 0 }
            coauthorSpine += used.filter { $0.1 >= Self.sureNameCredit }
        }
        for (i, c) in authorSpine { spineUsed[i] = true; spineCredit[i] = max(spineCredit[i], c) }
        // The other authors' names, read surely, are the book's too ("Story by Bryan Cesar, Artwork
        // by Neil Tavares"): explained, though only the best name counts as evidence.
        for (i, c) in coauthorSpine where !spineUsed[i] { spineUsed[i] = true; spineCredit[i] = c }

        // Subtitle, series and article words on the spine are explained, though not required.
        // Only near-exact: a "BOOKS" imprint must not make "Comic Book, Issue 1" the better reading.
        let extra = index.extra[b]
        var extraSeen = [Bool](repeating: false, count: extra.count)
        for (i, word) in spine.words.enumerated() where !spineUsed[i] {
            for (k, w) in extra.enumerated() {
                let c = WordSimilarity.credit(words[Int(w)], word.scalars)
                if c >= 0.85 { spineUsed[i] = true; spineCredit[i] = max(spineCredit[i], c); extraSeen[k] = true; break }
            }
        }
        // Of two titles the spine reads equally well, the one with less unread subtitle/series text.
        let unreadExtra = extra.isEmpty ? 0 : Double(extraSeen.filter { !$0 }.count) / Double(extra.count)
        var explained = 0.0
        for (i, word) in spine.words.enumerated() where spineUsed[i] { explained += word.weight * spineCredit[i] }
        let precision = min(1, explained / spine.totalWeight)

        // Letters of evidence -> probability that this is no coincidence; a one-word title needs
        // a long word or its author to pass 0.6.
        // Words mostly seen in names count less here ("JAMES" alone: a name more likely than a title).
        // A spine reading surely nothing but a title no other work has ("DUNE", "The Road") is
        // that book even when the title is one short word (`wholeTitleLetters`), unless a word of
        // it is also part of someone's name.
        let whole = Self.wholeTitles && index.uniqueTitle[b] && precision >= Self.wholePrecision
            && core.allSatisfy { !index.nameWord[Int($0)] }
            && titleCredit.allSatisfy { $0 >= 0.99 }
            && spine.words.indices.allSatisfy { !spineUsed[$0] || spine.words[$0].confidence >= Self.wholeConfidence }
        let evidence = 1 - exp(-(titleSure + authorInfo + (whole ? Self.wholeTitleLetters : 0)) / 5)
        let a = authorScore ?? 0
        // A series' name read whole is no shortened title: the words left unread are the book's own.
        let run = Self.partialRuns && precision >= Self.partialRunPrecision
            && (series == 0 || (series..<core.count).contains { titleCredit[$0] >= Self.partialRunCredit && index.wordEvidence[Int(core[$0])] > 1 })
            && Self.partialRun(credits: titleCredit, readAt: readAt, letters: core.map { words[Int($0)].count },
                               evidence: core.map { index.wordEvidence[Int($0)] })
        let titlePart = coverage + (1 - coverage)
            * min(1, Self.authorBonus * a + Self.wholeNameBonus * authorWhole + (run ? Self.partialRunBonus : 0))
        let score = evidence * titlePart * pow(precision, 0.4) * (1 - 0.04 * unreadExtra)
        // A title made only of a publisher's words ("Black Swan", "Vintage") is the imprint's
        // logo on spines of every kind: it names the book only beside its author's name. So is
        // a title of which only such words were read ("BLACK" and "SWAN" for *Black Swan Green*:
        // Bryson's imprint; "PENGUIN" for *Penguin Island*), common words aside.
        if score > 0.3, a < Self.sureNameCredit {
            let spelt = core.indices.map { String(String.UnicodeScalarView(words[Int(core[$0])])) }
            let read = Self.imprintReadWords ? core.indices.filter { titleCredit[$0] > 0 && !MatchText.commonWords.contains(spelt[$0]) } : []
            if spelt.allSatisfy(MatchText.publisherWords.contains)
                || (!read.isEmpty && read.allSatisfy { MatchText.publisherWords.contains(spelt[$0]) }) {
                return nil
            }
        }

        // A title of three letters or fewer ("We", "It", "S.") is a word any spine may read: it
        // names its book only beside its author's name read surely, not a look-alike of it
        // ("LAWRENCE" for Clarence Brown, the translator of Zamyatin's *We*, credit 0.75); read
        // as a look-alike, beside their surname, not a first name alone ("DAVID" and "TIN" on a
        // rose book are not David Monteagudo's *Fin*; "DAVID" and "The Fix" are Baldacci's).
        if Self.shortTitlesNeedNames, score > 0.3, titleTotal <= 3,
           a < Self.sureNameCredit
            || (!titleCredit.allSatisfy { $0 >= 0.99 } && !surnameRead(book: b, spine: spine, cache: &cache)) {
            return nil
        }
        // A title that is a known author's full name ("Agatha Christie", a picture-book life of
        // her; "Arthur Conan Doyle" by himself) is that author's name on every spine of theirs,
        // read once or twice (a reread line): it names the book only beside the name of another
        // of its authors, read surely (`SHELFSCAN_TITLE_NAMES=any` to compare).
        if Self.titleNames, score > 0.3, index.titleName[b] != nil, otherThanTitle < Self.sureNameCredit {
            return nil
        }

        // A subtitle standing for its book (`BookIndex.isSubtitleEntry`) must be read nearly whole:
        // its words are common ones, and part of one beside the author's name is another of their
        // books ("THE LIFE AND TIMES OF THE THUNDERBOLT KID BILL BRYSON" is not *At Home: A Short
        // History of Private Life*).
        if index.isSubtitleEntry(b), coverage < Self.subtitleCoverage { return nil }

        var matched: [String] = []
        for (i, word) in spine.words.enumerated() where spineCredit[i] > 0 && spineUsed[i] {
            matched.append(String(String.UnicodeScalarView(word.scalars)))
        }
        return BookMatch(book: index.books[b], score: min(1, max(0, score)), titleScore: coverage,
                         authorScore: index.authors[b].isEmpty ? nil : a, matchedText: matched.joined(separator: " "))
    }
}

/// Chooses one book per region so that no book is used twice in one photo.
public enum MatchAssignment {
    /// For each region, its book or nil. The most confident pairs are taken first across all
    /// regions, so a region's weaker candidate cannot take a book another region reads better;
    /// a region that loses its first choice falls back to its next.
    public static func assign(_ perRegion: [[BookMatch]], minScore: Double) -> [BookMatch?] {
        var pairs: [(score: Double, region: Int, rank: Int)] = []
        for (r, list) in perRegion.enumerated() {
            for (k, m) in list.enumerated() where m.score >= minScore { pairs.append((m.score, r, k)) }
        }
        pairs.sort { $0.score != $1.score ? $0.score > $1.score : ($0.region, $0.rank) < ($1.region, $1.rank) }
        var result = [BookMatch?](repeating: nil, count: perRegion.count)
        var used = Set<String>()
        for p in pairs where result[p.region] == nil {
            let m = perRegion[p.region][p.rank]
            let keys = identity(m.book)
            guard !keys.contains(where: used.contains) else { continue }
            used.formUnion(keys)
            result[p.region] = m
        }
        return result
    }

    /// Scores this close, from the same words, are a tie (`refusingTies`).
    static let tieMargin = Double(ProcessInfo.processInfo.environment["SHELFSCAN_TIE_MARGIN"] ?? "") ?? 0.03
    /// `SHELFSCAN_TIES=keep`: the better of two works fitting a spine alike is named all the same.
    static let refuseTies = ProcessInfo.processInfo.environment["SHELFSCAN_TIES"] != "keep"
    static let traceTies = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_TIES"] != nil

    /// `assigned` without the regions whose book another work fits alike, from the same words
    /// read (scores within `tieMargin`), unless that work is another region's book: "A Short
    /// History of" is *A Short History of Nearly Everything* as much as *A Short History of
    /// Tractors in Ukrainian*, and naming either would be a guess; but two spines reading
    /// "IMMORTAL RAILS PETER JOHNSON" beside each other are its volumes 1 and 2, one each. The
    /// reader's own book wins a tie against catalogue rows (the reader's shelf holds the reader's
    /// books). Rows of one title are one work whoever they credit ("Mary Shelley", "Mary
    /// Wollstonecraft Shelley"). A rival read from the same words that covers its title and
    /// authors as well ties at any score (`evenlyRead`). `assigned` must hold each run of ink once (`TextStage`'s
    /// runs over the same ink are left out first): another reading of the same ink is no
    /// other spine.
    public static func refusingTies(_ assigned: [BookMatch?], _ perRegion: [[BookMatch]], floor: Double = 0.6) -> [BookMatch?] {
        guard refuseTies else { return assigned }
        func work(_ book: Book) -> String { MatchText.rememberedTitle(book.title, subtitle: book.subtitle).work }
        var result = assigned
        // A region dropped may leave another's rival unexplained: until nothing changes.
        var changed = true
        while changed {
            changed = false
            let named = result.map { $0.map { work($0.book) } }
            for (r, m) in result.enumerated() {
                guard let m else { continue }
                let own = work(m.book)
                let rivals = perRegion[r].filter { rival in
                    rival.matchedText == m.matchedText && work(rival.book) != own
                        && (abs(rival.score - m.score) < tieMargin || evenlyRead(rival, m, floor: floor))
                        && !named.enumerated().contains { $0.offset != r && $0.element == work(rival.book) }
                }
                guard !rivals.isEmpty else { continue }
                let ownedRivals = Set(rivals.filter(\.book.owned).map { work($0.book) })
                if traceTies {
                    FileHandle.standardError.write(Data("TIE \(m.book.title) \(m.score) owned \(m.book.owned) | \(rivals.map { "\($0.book.title) \($0.score) owned \($0.book.owned)" }) | \(m.matchedText)\n".utf8))
                }
                if m.book.owned, ownedRivals.isEmpty { continue }
                let used = Set(result.enumerated().filter { $0.offset != r }.compactMap { $0.element }.flatMap { identity($0.book) })
                if !m.book.owned, ownedRivals.count == 1, let mine = rivals.first(where: \.book.owned),
                   !identity(mine.book).contains(where: used.contains) {
                    result[r] = mine
                } else {
                    result[r] = nil
                }
                changed = true
            }
        }
        return result
    }

    /// Whether `rival`, named from the very words `m` was (`matchedText`), at `floor` or more,
    /// covers its title as well and its authors as well: what set the two apart is then what
    /// each title left unread, not what was read. "RSPB HANDBOOK OF PETER HOLDEN" names *RSPB
    /// Handbook of British Birds* at 0.99 beside *... of Garden Wildlife* at 0.90, both Peter
    /// Holden's, the latter covering its title better (0.55 against 0.52): either would be a
    /// guess (`SHELFSCAN_EVEN_READINGS=off`: only scores within `tieMargin` tie).
    static func evenlyRead(_ rival: BookMatch, _ m: BookMatch, floor: Double) -> Bool {
        evenReadings && rival.score >= floor && rival.titleScore >= m.titleScore
            && (rival.authorScore ?? 0) >= (m.authorScore ?? 0)
    }
    static let evenReadings = ProcessInfo.processInfo.environment["SHELFSCAN_EVEN_READINGS"] != "off"

    /// What makes two rows the same book: the same row, or the same ISBN, or the same title and
    /// first author (an owned copy and a catalogue row of one book are two rows).
    static func identity(_ book: Book) -> [String] {
        identity(title: book.title, subtitle: book.subtitle, authors: book.authors, id: book.id, isbn13: book.isbn13)
    }

    /// `identity` from a book's parts (a found book, `BookEntity`, carries no row id).
    static func identity(title: String, subtitle: String?, authors: [String], id: Int64?, isbn13: String?) -> [String] {
        var keys = ["title:" + MatchText.rememberedTitle(title, subtitle: subtitle).work + "|"
            + (authors.first.map { MatchText.authorWords($0).sorted().joined(separator: " ") } ?? "")]
        if let id { keys.append("id:\(id)") }
        if let isbn13 { keys.append("isbn:\(isbn13)") }
        return keys
    }
}
