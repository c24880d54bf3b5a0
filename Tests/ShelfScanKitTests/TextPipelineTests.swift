import Foundation
import Testing
@testable import ShelfScanKit

/// The text path on the rendered corpus: spine finding, reading direction, matching, end to end.
/// Floors are the product's promise on clean rendered shelves (most books, none invented), not
/// today's figures.
@Suite("Text path: spines, covers and stacks", .timeLimit(.minutes(10)))
struct TextPipelineTests {
    static let truth: [String: TruthRecord] = {
        let records = (try? TruthRecord.load(directory: Fixtures.sampleImages)) ?? []
        return Dictionary(records.map { ($0.image, $0) }, uniquingKeysWith: { a, _ in a })
    }()

    static func labelled(_ image: String) throws -> Set<String> {
        let record = try #require(truth[image], "\(image) is not in SampleImages/truth.jsonl")
        return Set(record.books.map { TitleKey.of($0.title) })
    }

    /// A scanner over the corpus's own labelled books (eval's default library).
    static func scanner(mode: ScanMode = .auto) throws -> ShelfScanner {
        var options = ScanOptions()
        options.mode = mode
        return ShelfScanner(options: options, library: try Evaluator.corpusLibrary(directory: Fixtures.sampleImages))
    }

    /// A photo of the shared shelves (`image` under corpora/shelves) and the first standing spine
    /// region found in it that covers column `x`.
    static func sharedSpine(_ image: String, x: Int) async throws -> (PixImage, TextRegion) {
        let photo = try ImageLoader().load(path: Fixtures.sharedCorpora + "/shelves/" + image).image
        let regions = try await offPool { try SpineFinder().spines(in: photo).regions }
        let region = try #require(regions.first { r in r.layout == .spine && r.box.x <= x && r.box.x + r.box.width >= x },
                                  "regions: \(regions.map(\.box))")
        return (photo, region)
    }

    /// The book `lines` name alone in `matcher` (its best match, at 0.6 or more), if any.
    static func named(_ lines: [ReadLine], by matcher: BookMatcher) -> String? {
        matcher.matches(for: TextStage.regionText(lines)).first.flatMap { $0.score >= 0.6 ? $0.book.title : nil }
    }

    /// Whether any of `lines` holds `word` (letters only, lower case: "theflies").
    static func reads(_ word: String, _ lines: [ReadLine]) -> Bool {
        lines.contains { TextStage.letters($0.text).contains(word) }
    }

    /// `region` read twice off the pool, one engine, no deadline: with `option` on, then off
    /// (`base` sets the other options first).
    static func readWithAndWithout(_ option: WritableKeyPath<RegionReader, Bool> & Sendable, _ region: TextRegion,
                                   in photo: PixImage, base: @escaping @Sendable (inout RegionReader) -> Void = { _ in })
        async throws -> (with: [ReadLine], without: [ReadLine])
    {
        try await offPoolReading { reader, engine in
            base(&reader)
            reader[keyPath: option] = true
            let with = try reader.read(region, in: photo, engine: engine)
            reader[keyPath: option] = false
            return (with, try reader.read(region, in: photo, engine: engine))
        }
    }

    /// Scans a SampleImages file off the concurrency pool.
    static func scan(_ image: String, mode: ScanMode = .auto) async throws -> ImageResult {
        let scanner = try scanner(mode: mode)
        return try await offPool { scanner.scan(path: Fixtures.sample(image)) }
    }

    @Test("spine finder: a two-row shelf gives two rows of regions inside the photo, about one per book")
    func twoRows() async throws {
        let image = "shelves/shelf-2rows-perspective.jpg"
        let photo = try ImageLoader().load(path: Fixtures.sample(image)).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        let books = try Self.labelled(image).count
        #expect(Set(layout.regions.map(\.row)) == [0, 1])
        #expect(layout.regions.allSatisfy { $0.layout == .spine })
        #expect(layout.regions.count >= books / 2 && layout.regions.count <= books * 2,
                "\(layout.regions.count) regions for \(books) books")
        for region in layout.regions {
            let b = region.box
            #expect(b.x >= 0 && b.y >= 0 && b.x + b.width <= photo.width && b.y + b.height <= photo.height, "\(b)")
            #expect(b.height > b.width, "a standing spine is taller than wide: \(b)")
        }
        // The two rows do not overlap much: row 1 starts below the middle of row 0.
        let row0 = layout.regions.filter { $0.row == 0 }.map(\.box), row1 = layout.regions.filter { $0.row == 1 }.map(\.box)
        let middle0 = row0.map { $0.y + $0.height / 2 }.max()!, top1 = row1.map(\.y).min()!
        #expect(top1 > middle0)
    }

    @Test("spine finder: books lying in a stack are found as lying spines")
    func stack() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("stacks/stack-6-books.jpg")).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        #expect(layout.lyingEdges > layout.standingEdges)
        #expect(!layout.regions.isEmpty)
        #expect(layout.regions.allSatisfy { $0.layout == .lyingSpine && $0.box.width > $0.box.height })
    }

    @Test("a book read only from another book's lines, reread on the same ink by an overlapping window, is dropped")
    func echoesDropped() {
        func line(_ text: String, _ x: Int, _ y: Int, _ w: Int, confidence: Double = 95) -> ReadLine {
            ReadLine(text: text, confidence: confidence, box: BoundingBox(x: x, y: y, width: w, height: 29),
                     textHeight: 29, quarterTurns: 0)
        }
        func book(_ title: String, _ confidence: Double) -> BookEntity {
            BookEntity(title: title, subtitle: nil, authors: [], isbn13: nil, isbn10: nil, inLibrary: false, libraryId: nil,
                       readingStatus: nil, source: "catalog", publisher: nil, year: nil, coverURL: nil,
                       confidence: confidence, evidence: [])
        }
        let swan = (book("The Black Swan", 0.79), [line("BLACK", 200, 182, 75), line("SWAN", 205, 214, 65)])
        // The same word one pixel lower, from the overlapping window: an echo.
        let echo = (book("Black", 0.6), [line("BLACK", 200, 183, 75)])
        // The same word elsewhere in the photo is another book's evidence, not an echo.
        let elsewhere = (book("Black Beauty", 0.7), [line("BLACK", 600, 183, 75), line("BEAUTY", 600, 214, 80)])
        // Different letters on overlapping ink (two readings of a blurred word) are not an echo either.
        let other = (book("Slack Water", 0.65), [line("SLACK", 201, 182, 75)])
        let kept = TextStage.withoutEchoes([echo, swan, elsewhere, other]).map { $0.title ?? "" }
        #expect(kept == ["The Black Swan", "Black Beauty", "Slack Water"])
        // A spine read twice, once with a little junk before it: the junk reading's book is an echo.
        let farm = (book("Animal Farm", 0.95), [line("GEORGE ORWELL ANIMAL FARM", 300, 400, 500)])
        let rebellion = (book("La Rebel·lió dels animals", 0.6), [line("Bf GEORGE ORWELL ANIMAL FARM", 280, 401, 520, confidence: 70)])
        #expect(TextStage.withoutEchoes([rebellion, farm]).map { $0.title ?? "" } == ["Animal Farm"])
        // A line that holds a surer book's line and a title besides is no echo of it (phil1: the
        // author's name that completed the Dawn Treader, read again within the Silver Chair's line).
        let treader = (book("The Voyage of the Dawn Treader", 0.99),
                       [line("I Ethel the Vovn the Dawn Treader Wis", 901, 4, 69), line("C. S. LEWIS) 3)", 983, 470, 18)])
        let chair = (book("The Silver Chair", 0.95), [line("d ea The Silver Chair C. S. LEWIS oa y", 961, 465, 76)])
        #expect(TextStage.withoutEchoes([chair, treader]).map { $0.title ?? "" } == ["The Voyage of the Dawn Treader", "The Silver Chair"])
    }

    @Test("a book whose title words all belong to a surer book's title, read from that book's ink, is a fragment of it")
    func fragmentsDropped() {
        func line(_ text: String, _ x: Int, _ y: Int) -> ReadLine {
            ReadLine(text: text, confidence: 90, box: BoundingBox(x: x, y: y, width: 30, height: 100), textHeight: 30, quarterTurns: 3)
        }
        func book(_ title: String, _ confidence: Double) -> BookEntity {
            BookEntity(title: title, subtitle: nil, authors: [], isbn13: nil, isbn10: nil, inLibrary: false, libraryId: nil,
                       readingStatus: nil, source: "catalog", publisher: nil, year: nil, coverURL: nil,
                       confidence: confidence, evidence: [])
        }
        let kindness = (book("The Kindness of Strangers", 0.86), [line("The Kindness", 10, 450), line("of Strangers", 12, 600)])
        // A window over the same spine read only its last word: a fragment.
        let fragment = (book("Strangers", 0.79), [line("Strangers", 14, 610)])
        // The same title on another spine is another book.
        let elsewhere = (book("Strangers", 0.75), [line("STRANGERS", 500, 600)])
        // Other words on the same ink are not a fragment of it (a misreading, judged as such
        // elsewhere). A reading within the surer line's letters ("Stranger") would be an echo,
        // and a look-alike of its word ("Stronger") a piece of it (`piecesOfLongerTitles`).
        let other = (book("Stranded", 0.7), [line("Stranded", 13, 605)])
        let kept = TextStage.withoutEchoes([fragment, kindness, elsewhere, other]).map { $0.title ?? "" }
        #expect(kept == ["The Kindness of Strangers", "Strangers", "Stranded"])
        let lookalike = (book("Stronger", 0.7), [line("Stronger", 13, 605)])
        #expect(TextStage.withoutEchoes([kindness, lookalike]).map { $0.title ?? "" } == ["The Kindness of Strangers"])
    }

    @Test("a title read out of a longer title's ink is a piece of it, whichever is surer")
    func piecesOfLongerTitles() {
        func line(_ text: String, _ x: Int, _ y: Int, _ h: Int = 100) -> ReadLine {
            ReadLine(text: text, confidence: 90, box: BoundingBox(x: x, y: y, width: 30, height: h), textHeight: 30, quarterTurns: 1)
        }
        func book(_ title: String, _ confidence: Double, by authors: [String] = []) -> BookEntity {
            BookEntity(title: title, subtitle: nil, authors: authors, isbn13: nil, isbn10: nil, inLibrary: false, libraryId: nil,
                       readingStatus: nil, source: "catalog", publisher: nil, year: nil, coverURL: nil,
                       confidence: confidence, evidence: [])
        }
        func kept(_ books: [(BookEntity, [ReadLine])]) -> [String] { TextStage.withoutEchoes(books).map { $0.title ?? "" } }
        // chris1 re-encoded: "Heaven" read surely at the foot of the spine whose whole reading,
        // at 51, named *The Lathe of Heaven*.
        let lathe = (book("The Lathe of Heaven", 0.70), [line("4 at iN Heaven Pare be", 638, 474, 2143)])
        let heaven = (book("Heaven (Casteel, #1)", 0.82), [line("Heaven", 640, 1908, 220)])
        #expect(kept([heaven, lathe]) == ["The Lathe of Heaven"])
        // The same word on another spine is another book; so is a longer title's word on its own
        // spine when the shorter title says more ("Lathe" alone would not name Heaven).
        let apart = (book("Heaven (Casteel, #1)", 0.82), [line("Heaven", 900, 1908, 220)])
        #expect(kept([apart, lathe]) == ["Heaven (Casteel, #1)", "The Lathe of Heaven"])
        // A plural, a word inside a longer one, and the other book's author's name count as its words.
        let kindness = (book("The Kindness of Strangers", 0.6), [line("The Kindness A af Strangers", 10, 450, 400)])
        let stranger = (book("The Stranger", 0.9), [line("Hag Stranger", 12, 600)])
        #expect(kept([stranger, kindness]) == ["The Kindness of Strangers"])
        let arcturus = (book("A Voyage to Arcturus", 0.96, by: ["David Lindsay"]), [line("TO ARC TURUS LINDSAY", 10, 0, 500)])
        let david = (book("No, David!", 0.67), [line("E DAVID", 12, 300)])
        #expect(kept([david, arcturus]) == ["A Voyage to Arcturus"])
        // Two volumes of one work over the same ink are two books: the number is a word of its own.
        let one = (book("Immortal Rails Volume 1", 0.99), [line("af mmorta Rails san eter Johnson", 10, 0, 500)])
        let two = (book("Immortal Rails Volume 2", 0.99), [line("mmorta ails vome2 Peter Johnson", 12, 0, 500)])
        #expect(Set(kept([one, two])) == ["Immortal Rails Volume 1", "Immortal Rails Volume 2"])
        // Titles of the same words, give or take a letter, read from one ink: the surer one stays
        // (suzanne2, two readings of one Pratchett spine).
        let last = (book("The Last Continent", 0.99), [line("THE LAST CONTINENT Terry Pratchett", 10, 0, 500)])
        let lost = (book("The Lost Continent", 0.95), [line("x, THE LAST CONTINENT", 14, 0, 300), line("THELAST Torry ly", 14, 320, 150)])
        #expect(kept([lost, last]) == ["The Last Continent"])
        let spelled = ["last", "continent"].map { Array($0.unicodeScalars) }
        #expect(TextStage.piece(["lost", "continent"], ["lost", "continent"], of: ["last", "continent"], spelled) == false)
        #expect(TextStage.piece(["lost", "horizon"], ["lost", "horizon"], of: ["last", "continent"], spelled) == nil)
    }

    @Test("unidentified text is text no found book explains: not a found title read again, not listed twice")
    func unidentifiedIsUnexplained() {
        var books = [Book(title: "Murder at the Vicarage", authors: ["Agatha Christie"])]
        books[0].id = 1
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: BookMatcher(books: books), minimumScore: 0.6)
        func region(_ index: Int) -> TextRegion {
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 40 * index, y: 0, width: 60, height: 400), lean: 0,
                       typicalThickness: 40, row: 0, index: index)
        }
        func line(_ text: String, x: Int) -> ReadLine {
            ReadLine(text: text, confidence: 90, box: BoundingBox(x: x, y: 20, width: 30, height: 300), textHeight: 30, quarterTurns: 3)
        }
        // Region 0 names the book; region 1 (an overlapping window) reads the same spine again
        // with junk around it; region 2 reads the title alone, far away (a second copy's
        // leftover line); regions 3 and 4 read an unknown title, twice.
        // Region 5 reads the title and author again badly (a second copy, a reflection); region 6
        // only the author's name, which another of her books' spine prints too: left as a lead.
        let perRegion = [[line("Murder at the Vicarage", x: 110)], [line("STIE Murder at the Vicarage", x: 112)],
                         [line("the Vicarage", x: 190)], [line("Zyxwv Quorbalt", x: 240)], [line("Zyxwv Quorbalt", x: 280)],
                         [line("Th Murder ot the Vicaraqe AGATHA CHRISTlE", x: 320)], [line("AGATHA CHRISTIE", x: 360)],
                         // Region 7: an unknown title read three times by the passes, once with junk.
                         [line("Qwerty Plonk", x: 400), line("QWERTY PLONK", x: 401), line("Qwerty Plonk zz", x: 400)]]
        let (found, unidentified) = stage.match(lines: perRegion, regions: (0..<8).map(region), coverLike: false)
        #expect(found.map(\.title) == ["Murder at the Vicarage"])
        #expect(unidentified.map(\.text) == ["Zyxwv Quorbalt", "AGATHA CHRISTIE", "Qwerty Plonk / Qwerty Plonk zz"], "\(unidentified.map(\.text))")
    }

    @Test("a found book's words read again: most letters in its title's or authors' words, a title word among them unless on its own spine",
          arguments: [
              ("Th Lonely Passion of Judith Hearne Brian Moore", true, true),
              ("MACKAY THEOREHARD ON Fine", true, true),        // two title words run together, one misread
              ("BRIAN MOORE", true, false),                     // the authors alone, on another spine
              ("BRIAN MOORE", false, true),                     // the authors alone, on the book's spine
              ("Lonely Planet Paris", true, false),             // one title word among others
              ("THE OF", true, false),                          // only common words
              ("Passion Fruit Cookery Moore", true, false),     // half the letters another book's
              ("", true, false),
          ])
    func foundWords(text: String, titleWord: Bool, explained: Bool) {
        let book = BookEntity(title: "The Lonely Passion of Judith Hearne", subtitle: nil, authors: ["Brian Moore"], isbn13: nil,
                              isbn10: nil, inLibrary: true, libraryId: 1, readingStatus: nil, source: "library", publisher: nil,
                              year: nil, coverURL: nil, confidence: 0.9, evidence: [])
        let orchard = BookEntity(title: "The Orchard on Fire", subtitle: nil, authors: ["Shena Mackay"], isbn13: nil, isbn10: nil,
                                 inLibrary: true, libraryId: 2, readingStatus: nil, source: "library", publisher: nil, year: nil,
                                 coverURL: nil, confidence: 0.9, evidence: [])
        let words = text.hasPrefix("MACKAY") ? TextStage.FoundWords(orchard) : TextStage.FoundWords(book)
        #expect(words.explain(text, titleWord: titleWord) == explained)
    }

    @Test("a line of evidence that is only the book's authors' names does not make its spine named",
          arguments: [
              ("STEPHEN: KING", ["Stephen King"], true),
              ("KING", ["Stephen King"], true),
              ("Peter Straub STEPHEN KING", ["Stephen King", "Peter Straub"], true),
              ("MERCEDES STEPHEN KING", ["Stephen King"], false),
              ("DOCTOR", ["Stephen King"], false),
              ("STEPHEN KING", [], false),
              ("", ["Stephen King"], false),
          ] as [(String, [String], Bool)])
    func authorsOnly(text: String, authors: [String], expected: Bool) {
        #expect(TextStage.authorsOnly(text, of: authors) == expected)
    }

    @Test("runs of lines: a run across two spines loses a near tie to runs within their own spines, not a clear win")
    func scheduleCrossing() {
        func group(_ first: Int, _ last: Int, _ title: String, _ score: Double, crossing: Bool) -> TextStage.Group {
            TextStage.Group(first: first, last: last, matches: [BookMatch(book: Book(title: title), score: score, titleScore: score,
                                                                          authorScore: nil, matchedText: "")], crossing: crossing)
        }
        // Lines: 0 "FULL DARK NO STARS" | 1 "STEPHEN KING", 2 "DOCTOR SLEEP" | 3 "STEPHEN KING" (the
        // next spine's), spines split at the bars; each run below a book it could be.
        let groups = [group(0, 0, "Full Dark, No Stars", 0.95, crossing: false),
                      group(0, 1, "Full Dark, No Stars", 0.97, crossing: true),
                      group(1, 2, "Doctor Sleep", 0.99, crossing: false),
                      group(2, 3, "Doctor Sleep", 0.99, crossing: true)]
        func picked(_ penalty: Double, _ groups: [TextStage.Group], count: Int = 4) -> [String] {
            TextStage.schedule(groups, count: count, threshold: 0.6, crossing: penalty).map { "\($0.first)-\($0.last)" }
        }
        #expect(picked(0, groups) == ["0-1", "2-3"])
        #expect(picked(0.04, groups) == ["0-0", "1-2"])
        // A spine split by a false edge: its one run across the edge still wins.
        let split = [group(0, 0, "Full Dark, No Stars", 0.7, crossing: false),
                     group(0, 1, "Full Dark, No Stars", 0.95, crossing: true)]
        #expect(picked(0.04, split, count: 2) == ["0-1"])
    }

    @Test("a line of evidence holding no word of the book's title does not make its spine named",
          arguments: [
              ("THE DEAD ZONE", "The Dead Zone", true),
              ("DEADZONE", "The Dead Zone", true),
              ("THE DEAD ZONF", "The Dead Zone", true),
              ("ae jl", "The Dead Zone", false),
              ("STEPHEN KING", "The Dead Zone", false),
              ("THE", "The Dead Zone", false),
              ("ZOMB", "The Dead Zone", false),
              ("IT", "It", true),
              ("HITLER:", "Hitler 1889-1936: Hubris", true),
              ("HUBRIS", "Hitler 1889-1936: Hubris", true),
          ] as [(String, String, Bool)])
    func holdsTitleWord(text: String, title: String, expected: Bool) {
        #expect(TextStage.holdsTitleWord(text, title: title, subtitle: nil) == expected)
    }

    @Test("a reading names a book alone or beside the spine's sure lines; junk, or nothing read, does not")
    func readingNames() {
        var books = [Book(title: "Cakes and Ale", authors: ["W. Somerset Maugham"]),
                     Book(title: "The Moon and Sixpence", authors: ["W. Somerset Maugham"])]
        for i in books.indices { books[i].id = Int64(i + 1) }
        let matcher = BookMatcher(books: books)
        func line(_ text: String, _ confidence: Double = 80) -> ReadLine {
            ReadLine(text: text, confidence: confidence, box: BoundingBox(x: 10, y: 10, width: 300, height: 20), textHeight: 20, quarterTurns: 0)
        }
        func names(_ read: [ReadLine], besides sure: [ReadLine] = []) -> Bool {
            TextStage.names(read, besides: sure, matcher: matcher, minimumScore: 0.6)
        }
        #expect(names([line("WSOMERSET MALIG “CAKES AND ALE.")]))
        #expect(!names([line("TH ONY"), line("ea")]))
        #expect(!names([line("TH ONY")], besides: [line("W. SOMERSET MAUGHAM", 95)]))
        // One title word alone names neither book; beside the author's name read surely, it does.
        #expect(!names([line("SIXPENCE")]))
        #expect(names([line("SIXPENCE")], besides: [line("W. SOMERSET MAUGHAM", 95)]))
        // The sure lines alone are not the reading's doing.
        #expect(!names([], besides: [line("CAKES AND ALE", 95)]))
    }

    @Test("a word two overlapping regions both read is one word: not a title word and its author's name at once")
    func sameInkOnce() {
        var books = [Book(title: "No, David!", authors: ["David Shannon"])]
        books[0].id = 1
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: BookMatcher(books: books), minimumScore: 0.6)
        let regions = (0..<2).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 30 * i, y: 0, width: 60, height: 400), lean: 0,
                       typicalThickness: 40, row: 0, index: i)
        }
        func line(_ text: String, x: Int, y: Int = 20) -> ReadLine {
            ReadLine(text: text, confidence: 95, box: BoundingBox(x: x, y: y, width: 50, height: 20), textHeight: 20, quarterTurns: 0)
        }
        // David Baldacci's spine: DAVID printed across it, read by both windows over it.
        let twice = stage.match(lines: [[line("DAVID", x: 120)], [line("DAVID", x: 121, y: 21)]], regions: regions, coverLike: false)
        #expect(twice.0.isEmpty, "\(twice.0.map(\.title))")
        // Two different lines, title and author, are the book.
        let named = stage.match(lines: [[line("DAVID", x: 120)], [line("DAVID SHANNON", x: 121, y: 300)]], regions: regions, coverLike: false)
        #expect(named.0.map(\.title) == ["No, David!"])
    }

    @Test("a run whose first choice another run named is not named its next choice on words that first choice explains")
    func explainedAway() {
        var books = [Book(title: "Harry Potter and the Goblet of Fire", authors: ["J. K. Rowling"]),
                     Book(title: "Harry Potter and the Half-Blood Prince", authors: ["J. K. Rowling"])]
        for i in books.indices { books[i].id = Int64(i + 1) }
        let matcher = BookMatcher(books: books)
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: matcher, minimumScore: 0.6)
        // Two windows over one spine, the second shifted: its lines lie elsewhere along the spine.
        let regions = (0..<2).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 40 * i, y: 0, width: 80, height: 900), lean: 0,
                       typicalThickness: 60, row: 0, index: i)
        }
        func line(_ text: String, x: Int, y: Int, length: Int = 300) -> ReadLine {
            ReadLine(text: text, confidence: 90, box: BoundingBox(x: x, y: y, width: 30, height: length), textHeight: 30, quarterTurns: 1)
        }
        let whole = [line("HARRY POTTER and the Goblet of Fire J.K. ROWLING", x: 120, y: 50, length: 800)]
        let shifted = [line("HARRY POTTER J.K.ROWLING", x: 150, y: 40, length: 200), line("ano the Goblet of Fire BLOO", x: 145, y: 500, length: 300)]
        // The shifted window's lines rank the Goblet of Fire first and the Half-Blood Prince after it, named.
        let ranked = matcher.matches(for: TextStage.regionText(shifted))
        #expect(ranked.first?.book.title == books[0].title)
        #expect(ranked.contains { $0.book.title == books[1].title && $0.score >= 0.6 }, "\(ranked.map { ($0.book.title, $0.score) })")
        let found = stage.match(lines: [whole, shifted], regions: regions, coverLike: false).0
        #expect(found.map(\.title) == [books[0].title], "\(found.map(\.title))")
        // A word of its own ("PRINCE") names the next choice all the same.
        let own = [line("POTTER J.K.ROWLING", x: 150, y: 40, length: 200), line("HALF-BLOOD PRINCE the Goblet", x: 145, y: 500, length: 300)]
        let both = stage.match(lines: [whole, own], regions: regions, coverLike: false).0
        #expect(Set(both.compactMap(\.title)) == Set(books.map(\.title)), "\(both.map(\.title))")
        // The words left: the first choice's title and author words out, short and common words kept.
        #expect(TextStage.without(books[0], shifted).map(\.text) == ["ano the of BLOO"])
        // A word of the next choice's read whole keeps it: "Rankin" beside a "BLACK" that *Black
        // Diamonds and the Blue Brazil* explains; a piece of a word ("BLOO") does not.
        #expect(TextStage.holdsWord(of: Book(title: "The Black Book", authors: ["Ian Rankin"]), [line("O Rankin", x: 0, y: 0)]))
        #expect(!TextStage.holdsWord(of: books[1], TextStage.without(books[0], shifted)))
        // Volumes of one work are left to the rules for volumes.
        #expect(TextStage.volumes(Book(title: "Immortal Rails Volume 1"), Book(title: "Immortal Rails Volume 2")))
        #expect(TextStage.volumes(Book(title: "Leeuwarden II"), Book(title: "Leeuwarden")))
        #expect(!TextStage.volumes(books[0], books[1]))
        #expect(!TextStage.volumes(Book(title: "Ill Met by Moonlight"), Book(title: "Met by Moonlight")))
    }

    @Test("a region whose own band reads a named book's title surely, beside the region that named it, is that spine again")
    func windowsOverNamedSpines() {
        // Three standing regions: 0 named the book; 1 overlaps it by half; 2 is the next spine on.
        var regions = [(100, 200), (150, 250), (260, 360)].enumerated().map { i, span in
            TextRegion(layout: .spine, box: BoundingBox(x: span.0, y: 0, width: span.1 - span.0, height: 900), lean: 0,
                       typicalThickness: 100, row: 0, index: i)
        }
        regions[0].band = 110...195
        regions[1].band = 150...245
        regions[2].band = 262...355
        func line(_ text: String, x: Int, confidence: Double = 85) -> ReadLine {
            ReadLine(text: text, confidence: confidence, box: BoundingBox(x: x, y: 100, width: 40, height: 500), textHeight: 40, quarterTurns: 1)
        }
        let title = line("MOVING PICTURES Terry Pratchett", x: 140)
        let match = BookMatch(book: Book(title: "Moving Pictures", authors: ["Terry Pratchett"]), score: 0.95, titleScore: 1,
                              authorScore: 1, matchedText: "moving pictures terry pratchett")
        let book = TextStage.entity(match, lines: [title], region: regions[0])
        func windows(_ one: [ReadLine], _ two: [ReadLine]) -> Set<Int> {
            TextStage.windowsOverNamed(books: [book], lines: [[title], one, two], regions: regions, naming: [title.box])
        }
        // Region 1's band holds "A MOVING PICTURES Tove": the same spine; region 2's is another.
        #expect(windows([line("A MOVING PICTURES Tove", x: 170)], [line("MOVING PICTURES", x: 290)]) == [1])
        // Only the author's name (another book of theirs), unsure, or on a neighbour's sliver: read on.
        #expect(windows([line("Terry Pratchett", x: 170)], []).isEmpty)
        #expect(windows([line("A MOVING PICTURES Tove", x: 170, confidence: 55)], []).isEmpty)
        #expect(windows([line("MOVING PICTURES", x: 125)], []).isEmpty)
    }

    /// A matching stage over `books` (given ids) and one standing spine region, 80 x 700 at x 100.
    static func oneSpine(_ books: [Book]) -> (TextStage, TextRegion) {
        var books = books
        for i in books.indices { books[i].id = Int64(i + 1) }
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: BookMatcher(books: books), minimumScore: 0.6)
        let region = TextRegion(layout: .spine, box: BoundingBox(x: 100, y: 0, width: 80, height: 700), lean: 0,
                                typicalThickness: 80, row: 0, index: 0)
        return (stage, region)
    }

    @Test("one word read across a standing spine names no book alone; beside a second word or the author's name along the spine it does")
    func oneWordAcross() {
        let (stage, region) = Self.oneSpine([Book(title: "The Secret", authors: ["Rhonda Byrne"]),
                                             Book(title: "Cell", authors: ["Stephen King"]), Book(title: "Carrie", authors: ["Stephen King"])])
        func across(_ text: String, y: Int) -> ReadLine {
            ReadLine(text: text, confidence: 95, box: BoundingBox(x: 110, y: y, width: 60, height: 25), textHeight: 25, quarterTurns: 0)
        }
        func along(_ text: String) -> ReadLine {
            ReadLine(text: text, confidence: 95, box: BoundingBox(x: 120, y: 50, width: 30, height: 300), textHeight: 30, quarterTurns: 1)
        }
        func named(_ lines: [ReadLine]) -> [String?] { stage.match(lines: [lines], regions: [region], coverLike: false).0.map(\.title) }
        // Read along the spine, the word names its book; cut out of "THE SECRET / HISTORY" across it, not.
        #expect(named([along("SECRET")]) == ["The Secret"])
        #expect(named([across("SECRET", y: 300)]).isEmpty)
        // Two words read across it do (the title's word and the author's name).
        #expect(named([across("SECRET", y: 300), across("RHONDA BYRNE", y: 360)]) == ["The Secret"])
        // The author's name along the spine and the title across it.
        #expect(named([across("CELL", y: 400)]).isEmpty)
        #expect(named([along("STEPHEN KING"), across("CELL", y: 400)]) == ["Cell"])
    }

    @Test("lines across a standing spine are matched top to bottom, and a word broken over two lines joins up")
    func acrossInReadingOrder() {
        let (stage, region) = Self.oneSpine([Book(title: "Alice in Wonderland", authors: ["Lewis Carroll"]),
                                             Book(title: "Alice", authors: ["Sara Shepard"]),
                                             Book(title: "Land of Stories", authors: ["Chris Colfer"])])
        // A hardback's title stacked across its spine, each word centred a little off (so that
        // left to right they come LAND, IN, ALICE, WONDER), and junk read along it.
        func across(_ text: String, centre: Int, y: Int) -> ReadLine {
            ReadLine(text: text, confidence: 92, box: BoundingBox(x: centre - 30, y: y, width: 60, height: 25), textHeight: 25, quarterTurns: 0)
        }
        let lines = [across("ALICE", centre: 140, y: 100), across("IN", centre: 138, y: 140), across("WONDER", centre: 143, y: 180),
                     across("LAND", centre: 135, y: 220),
                     ReadLine(text: "ee a", confidence: 60, box: BoundingBox(x: 150, y: 400, width: 20, height: 200), textHeight: 20, quarterTurns: 3)]
        let (found, _) = stage.match(lines: [lines.reversed()], regions: [region], coverLike: false)
        #expect(found.map(\.title) == ["Alice in Wonderland"], "\(found.map(\.title))")
        // Along a spine, lines are taken left to right (beside the neighbouring spines' lines),
        // and a word broken over two of them joins up: read bottom to top (1 quarter turn), ALICE
        // IN WONDER is the leftmost line.
        func along(_ text: String, x: Int) -> ReadLine {
            ReadLine(text: text, confidence: 92, box: BoundingBox(x: x, y: 100, width: 25, height: 400), textHeight: 25, quarterTurns: 1)
        }
        let joined = stage.match(lines: [[along("LAND", x: 140), along("ALICE IN WONDER", x: 110)]], regions: [region], coverLike: false)
        #expect(joined.0.map(\.title) == ["Alice in Wonderland"], "\(joined.0.map(\.title))")
        // Halves of a word on lines not next to each other do not join.
        let apart = stage.match(lines: [[along("ALICE IN WONDER", x: 110), along("WE WERE", x: 125), along("LAND", x: 140)]],
                                regions: [region], coverLike: false)
        #expect(apart.0.isEmpty, "\(apart.0.map(\.title))")
    }

    @Test("a spine reading only its author's whole name is the one work the reader owns by them not named yet, and only then")
    func ownedWorkByName() {
        var books = [Book(title: "The Picture of Dorian Gray", authors: ["Oscar Wilde"]),
                     Book(title: "The Importance of Being Earnest", authors: ["Oscar Wilde"], owned: false),
                     Book(title: "Cell", authors: ["Stephen King"]), Book(title: "Carrie", authors: ["Stephen King"]),
                     Book(title: "The Hard Thing About Hard Things", authors: ["Ben Horowitz"]),
                     Book(title: "Horse Under Water", authors: ["Len Deighton"], owned: false)]
        for i in books.indices { books[i].id = Int64(i + 1) }
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: BookMatcher(books: books), minimumScore: 0.6)
        let regions = (0..<6).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 60 * i, y: 0, width: 60, height: 700), lean: 0,
                       typicalThickness: 60, row: 0, index: i)
        }
        func line(_ text: String, _ r: Int, y: Int = 100, confidence: Double = 90) -> ReadLine {
            ReadLine(text: text, confidence: confidence, box: BoundingBox(x: 110 + 60 * r, y: y, width: 30, height: 200),
                     textHeight: 30, quarterTurns: 3)
        }
        func named(_ b: Int, on r: Int) -> BookEntity {
            TextStage.entity(BookMatch(book: books[b], score: 0.9, titleScore: 1, authorScore: 1, matchedText: ""),
                             lines: [line(books[b].title.uppercased(), r, y: 300)], region: regions[r])
        }
        // Wilde's spine (the Earnest in the catalogue is not the reader's), King's (two owned),
        // Horowitz's name across a hardback on two lines, Deighton (owned by nobody), Wilde's
        // name again, and a name read too doubtfully.
        let lines = [[line("OSCAR WILDE", 0), line("Tlre Pctwe", 0, y: 400, confidence: 45)], [line("STEPHEN KING", 1)],
                     [line("BEN", 2), line("HOROWITZ", 2, y: 140)], [line("LEN DEIGHTON", 3)], [line("OSCAR WILDE", 4)],
                     [line("BEN HOROWITZ", 5, confidence: 40)]]
        var findings = TextFindings()
        stage.addOwnedWorks(lines: lines, regions: regions, unnamed: Array(0..<5), into: &findings)
        #expect(findings.books.map(\.title) == ["The Picture of Dorian Gray", "The Hard Thing About Hard Things"])
        #expect(findings.books.allSatisfy { $0.inLibrary && $0.confidence < 0.7 }, "\(findings.books.map(\.confidence))")
        #expect(findings.books.first?.evidence.map(\.text) == ["OSCAR WILDE"])
        var doubtful = TextFindings()
        stage.addOwnedWorks(lines: lines, regions: regions, unnamed: [5], into: &doubtful)
        #expect(doubtful.books.isEmpty)
        // King's other owned book named on the photo: his spine is the last one.
        var cell = TextFindings()
        cell.books = [named(2, on: 5)]
        stage.addOwnedWorks(lines: lines, regions: regions, unnamed: [1], into: &cell)
        #expect(cell.books.map(\.title) == ["Cell", "Carrie"])
        // Not from the named book's own name line, read again by an overlapping window.
        var again = TextFindings()
        again.books = [TextStage.entity(BookMatch(book: books[2], score: 0.9, titleScore: 1, authorScore: 1, matchedText: ""),
                                        lines: [line("CELL", 5, y: 600), line("STEPHEN KING", 5, y: 300)], region: regions[5])]
        stage.addOwnedWorks(lines: [[], [], [], [], [], [line("STEPHEN KING", 5, y: 300)]], regions: regions, unnamed: [5], into: &again)
        #expect(again.books.map(\.title) == ["Cell"])
        // A book by Wilde the reader does not own named on the photo: his spine may be another
        // of those.
        var earnest = TextFindings()
        earnest.books = [named(1, on: 5)]
        stage.addOwnedWorks(lines: lines, regions: regions, unnamed: [0], into: &earnest)
        #expect(earnest.books.map(\.title) == ["The Importance of Being Earnest"])
    }

    @Test("a region beside its book's title, together a spine thick, holding only that book's lines and its author's name, is that spine's other part")
    func splitParts() throws {
        let book = Book(title: "Cinco horas con Mario", authors: ["Miguel Delibes"])
        /// Regions 0-3 across one row at `x` and `width`; typical spines 80 px thick.
        func regions(_ spans: [(x: Int, width: Int)]) -> [TextRegion] {
            spans.enumerated().map { i, s in
                TextRegion(layout: .spine, box: BoundingBox(x: s.x, y: 0, width: s.width, height: 900), lean: 0,
                           typicalThickness: 80, row: 0, index: i)
            }
        }
        func line(_ text: String, in region: TextRegion, y: Int, confidence: Double = 92) -> ReadLine {
            ReadLine(text: text, confidence: confidence, box: BoundingBox(x: region.box.x + 5, y: y, width: 30, height: 400),
                     textHeight: 30, quarterTurns: 3)
        }
        /// The parts found when the title is read in region 1 and the author's name in region
        /// `author` (lent to the book), besides `extra` lines in that region.
        func parts(_ spans: [(x: Int, width: Int)], author: Int = 0, extra: [(String, Double)] = []) -> Set<Int> {
            let rs = regions(spans)
            let title = line("CINCO HORAS CON MARIO", in: rs[1], y: 100)
            let name = line("MIGUEL DELIBES h 4", in: rs[author], y: 500)
            var lines = [[ReadLine]](repeating: [], count: rs.count)
            lines[1] = [title]
            lines[author] = [name] + extra.enumerated().map { i, e in line(e.0, in: rs[author], y: 520 + i, confidence: e.1) }
            let found = TextStage.entity(BookMatch(book: book, score: 0.95, titleScore: 1, authorScore: 1, matchedText: ""),
                                         lines: [title, name], region: rs[1])
            return TextStage.splitParts(books: [found], lines: lines, regions: rs, naming: [title.box])
        }
        // A thin strip cut off a 92 px spine: its other part.
        #expect(parts([(1056, 48), (1088, 60), (1150, 80)]) == [0])
        // The name read again with junk around it, and junk read unsurely, change nothing.
        #expect(parts([(1056, 48), (1088, 60), (1150, 80)], extra: [("MIGUEL DELIBES mA", 86), ("W140 vfiH", 62)]) == [0])
        // Two spines side by side, each about a spine thick: the other may be another of the
        // author's books, and stays to be read again.
        #expect(parts([(1000, 80), (1080, 80), (1160, 80)]).isEmpty)
        // Another title word read surely on it: more than that book there.
        #expect(parts([(1056, 48), (1088, 60), (1150, 80)], extra: [("LOS SANTOS INOCENTES", 90)]).isEmpty)
        // The part on the other side; then one region further off, not beside the title's.
        #expect(parts([(1000, 80), (1088, 48), (1136, 40)], author: 2) == [2])
        #expect(parts([(1000, 40), (1040, 40), (1080, 10), (1090, 30)], author: 3).isEmpty)
    }

    @Test("a half-read spine beside a book by the same author names that author's book, under the floor; nowhere else")
    func neighbourWorks() throws {
        var books = [Book(title: "Dancing Peel", authors: ["Lorna Hill"]), Book(title: "Masquerade at the Wells", authors: ["Lorna Hill"]),
                     Book(title: "The Murder at the Vicarage", authors: ["Agatha Christie"]),
                     Book(title: "Hercule Poirot's Christmas", authors: ["Agatha Christie"], owned: false),
                     Book(title: "Wells Cathedral", authors: ["Ann Other"], owned: false)]
        for i in books.indices { books[i].id = Int64(i + 1) }
        let matcher = BookMatcher(books: books)
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: matcher, minimumScore: 0.6)
        let regions = (0..<6).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 60 * i, y: 0, width: 60, height: 700), lean: 0,
                       typicalThickness: 60, row: 0, index: i)
        }
        func line(_ text: String, _ r: Int, y: Int = 100) -> ReadLine {
            ReadLine(text: text, confidence: 85, box: BoundingBox(x: 110 + 60 * r, y: y, width: 30, height: 400), textHeight: 30, quarterTurns: 3)
        }
        func named(_ b: Int, on r: Int) -> BookEntity {
            TextStage.entity(BookMatch(book: books[b], score: 0.9, titleScore: 1, authorScore: 1, matchedText: ""),
                             lines: [line(books[b].title.uppercased(), r, y: 300)], region: regions[r])
        }
        // A worn spine: the last title word, one letter wrong, and the author. Under the floor on
        // its own, so that only the neighbour can name it.
        let worn = "WELLE ORNA HILL"
        let alone = try #require(matcher.matches(for: TextStage.regionText([line(worn, 2)])).first)
        #expect(alone.book.title == "Masquerade at the Wells")
        #expect(alone.score >= TextStage.neighbourFloor && alone.score < 0.6, "\(alone.score)")
        /// What `addNeighbourWorks` adds to the books `found` (book, region) given `read` (region, text, y) besides.
        func added(_ found: [(Int, Int)], _ read: [(Int, String, Int)]) -> [BookEntity] {
            var lines = [[ReadLine]](repeating: [], count: 6)
            var findings = TextFindings()
            for (b, r) in found {
                findings.books.append(named(b, on: r))
                lines[r].append(line(books[b].title.uppercased(), r, y: 300))
            }
            for (r, text, y) in read { lines[r].append(line(text, r, y: y)) }
            let unnamed = Set(read.map(\.0)).subtracting(found.map(\.1)).sorted()
            stage.addNeighbourWorks(lines: lines, regions: regions, unnamed: unnamed, into: &findings)
            return Array(findings.books.filter { b in !found.contains { books[$0.0].title == b.title } })
        }
        let beside = added([(0, 1)], [(2, worn, 100)])
        #expect(beside.map(\.title) == ["Masquerade at the Wells"])
        #expect(beside.first?.confidence ?? 1 < 0.6)
        #expect(beside.first?.evidence.map(\.text) == [worn])
        // On the other side, too.
        #expect(added([(0, 3)], [(2, worn, 100)]).map(\.title) == ["Masquerade at the Wells"])
        // Two spines over: not its neighbour.
        #expect(added([(0, 4)], [(2, worn, 100)]).isEmpty)
        // Beside another author's book.
        #expect(added([(2, 1)], [(2, worn, 100)]).isEmpty)
        // Already named in the photo.
        #expect(added([(0, 1), (1, 5)], [(2, worn, 100)]).isEmpty)
        // The author's name alone names none of their books, though a title word looks like it.
        #expect(added([(2, 1)], [(2, "AGATHA CHRISTIE", 100), (2, "CHRISTIE", 520)]).isEmpty)
        // An overlapping window over the named spine's own ink is that spine.
        let window = TextRegion(layout: .spine, box: BoundingBox(x: 165, y: 0, width: 60, height: 700), lean: 0,
                                typicalThickness: 60, row: 0, index: 6)
        var findings = TextFindings()
        findings.books = [named(0, on: 1)]
        var lines = [[ReadLine]](repeating: [], count: 7)
        lines[1] = [line("DANCING PEEL", 1, y: 300)]
        lines[6] = [ReadLine(text: worn, confidence: 85, box: BoundingBox(x: 180, y: 100, width: 30, height: 400), textHeight: 30, quarterTurns: 3)]
        stage.addNeighbourWorks(lines: lines, regions: regions + [window], unnamed: [6], into: &findings)
        #expect(findings.books.count == 1)
    }

    @Test("a title word must be read nearly whole, and not be the author's name", arguments: [
        ("welle lorna hill", "Masquerade at the Wells", "Lorna Hill", true),
        ("sapphi efferies", "The Sapphire Widow", "Dinah Jefferies", true),
        ("agatha christie christie", "Hercule Poirot's Christmas", "Agatha Christie", false),
        ("ferry pratchett he pic", "Eric", "Terry Pratchett", false),
        ("wodehouse keay", "Heavy Weather", "P. G. Wodehouse", false),
        ("lorna hill the at", "Masquerade at the Wells", "Lorna Hill", false),
    ])
    func titleWordRead(matched: String, title: String, author: String, reads: Bool) {
        let match = BookMatch(book: Book(title: title, authors: [author]), score: 0.5, titleScore: 0.3, authorScore: 1, matchedText: matched)
        #expect(TextStage.readsTitleWord(match) == reads)
    }

    @Test("a run whose first choice went to a run over the same ink is that book read twice, not its next choice")
    func firstChoiceReadTwice() {
        var books = [Book(title: "Moving Pictures", authors: ["Terry Pratchett"]), Book(title: "Wings", authors: ["Terry Pratchett"])]
        books[0].id = 1; books[1].id = 2
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: BookMatcher(books: books), minimumScore: 0.6)
        let regions = (0..<3).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 40 * i, y: 0, width: 60, height: 700), lean: 0,
                       typicalThickness: 50, row: 0, index: i)
        }
        func line(_ text: String, x: Int, confidence: Double) -> ReadLine {
            ReadLine(text: text, confidence: confidence, box: BoundingBox(x: x, y: 20, width: 40, height: 600), textHeight: 30, quarterTurns: 3)
        }
        let good = line("MOVING PICTURES Terry Pratchett", x: 125, confidence: 95)
        let misread = "me WING PICTURES Terry Pratchett"
        // Alone, the misreading is Moving Pictures first, Wings next.
        let alone = stage.match(lines: [[], [line(misread, x: 128, confidence: 64)], []], regions: regions, coverLike: false)
        #expect(alone.0.map(\.title) == ["Moving Pictures"], "\(alone.0.map(\.title))")
        // Over the ink of the good reading (a second window over the spine), it is that reading again.
        let twice = stage.match(lines: [[good], [line(misread, x: 128, confidence: 64)], []], regions: regions, coverLike: false)
        #expect(twice.0.map(\.title) == ["Moving Pictures"], "\(twice.0.map(\.title))")
        // On other ink (another spine), its next choice stands where a word of its own was read
        // whole ("WINGS"); "WING" is a piece of it, and "PICTURES" the first choice's
        // (`explainedAway`, thirty-seventh session; before it, Wings stood on either).
        let beside = stage.match(lines: [[good], [], [line(misread, x: 185, confidence: 64)]], regions: regions, coverLike: false)
        #expect(beside.0.compactMap(\.title) == ["Moving Pictures"], "\(beside.0.map(\.title))")
        let whole = stage.match(lines: [[good], [], [line("me WINGS PICTURES Terry Pratchett", x: 185, confidence: 64)]], regions: regions, coverLike: false)
        #expect(Set(whole.0.compactMap(\.title)) == ["Moving Pictures", "Wings"], "\(whole.0.map(\.title))")
    }

    @Test("a run that reads a title two ways, or its title and author upside down from each other, names nothing")
    func readTwoWays() {
        var books = [Book(title: "It", authors: ["Stephen King"]), Book(title: "The House Girl", authors: ["Tara Conklin"]),
                     Book(title: "Firestarter", authors: ["Stephen King"])]
        for i in books.indices { books[i].id = Int64(i + 1) }
        let matcher = BookMatcher(books: books)
        let stage = TextStage(workers: OCRWorkers(size: 1), matcher: matcher, minimumScore: 0.6)
        let regions = (0..<2).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 + 60 * i, y: 0, width: 60, height: 700), lean: 0,
                       typicalThickness: 50, row: 0, index: i)
        }
        func line(_ text: String, x: Int, y: Int = 20, turns: Int, confidence: Double = 90) -> ReadLine {
            let along = turns % 2 == 1
            return ReadLine(text: text, confidence: confidence,
                            box: BoundingBox(x: x, y: y, width: along ? 30 : 50, height: along ? 300 : 25), textHeight: 25, quarterTurns: turns)
        }
        // Junk read one way along a spine beside an author's name read the other way on the
        // next spine: the matcher alone names *It* from them.
        let junk = [line("x it INI N", x: 120, turns: 3, confidence: 51)]
        let name = [line("STEPHEN", x: 170, turns: 1, confidence: 60), line("KING", x: 172, y: 400, turns: 1, confidence: 96)]
        let ranked = matcher.matches(for: TextStage.regionText(junk + name))
        #expect(ranked.first?.book.title == "It" && (ranked.first?.score ?? 0) >= 0.6, "\(ranked.map { ($0.book.title, $0.score) })")
        #expect(TextStage.readTwoWays(books[0], lines: junk + name))
        #expect(stage.match(lines: [junk, name], regions: regions, coverLike: false).0.isEmpty)
        // A title's words along and across one spine: pieces of two spines.
        let split = [line("THE GIRL W", x: 120, turns: 1, confidence: 70), line("house", x: 150, y: 300, turns: 0, confidence: 70)]
        #expect(TextStage.readTwoWays(books[1], lines: split))
        #expect(!stage.match(lines: [split, []], regions: regions, coverLike: false).0.contains { $0.title == "The House Girl" })
        // The author's name across the spine, the title along it, as hardbacks print them: one book.
        let hardback = [line("FIRESTARTER", x: 120, turns: 1), line("STEPHEN", x: 110, y: 600, turns: 0)]
        #expect(!TextStage.readTwoWays(books[2], lines: hardback))
        #expect(stage.match(lines: [hardback, []], regions: regions, coverLike: false).0.map(\.title) == ["Firestarter"])
    }

    @Test("every spine region knows its band (the space between its edges), inside its box")
    func bandsInsideBoxes() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-perspective.jpg")).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        #expect(!layout.regions.isEmpty)
        for region in layout.regions {
            let band = try #require(region.band)
            let (lo, hi) = region.layout == .spine ? (region.box.x, region.box.x + region.box.width)
                : (region.box.y, region.box.y + region.box.height)
            #expect(band.lowerBound >= Double(lo) - 1 && band.upperBound <= Double(hi) + 1, "\(band) outside \(region.box)")
            #expect(band.upperBound - band.lowerBound >= 0.5 * Double(hi - lo), "band \(band) is a sliver of \(region.box)")
        }
    }

    @Test("with spine-gray padding a spine's crop is padded with its own gray, whichever way it stands; white by default",
          arguments: [TextRegion.Layout.spine, .lyingSpine])
    func paddedWithSpineGray(_ layout: TextRegion.Layout) throws {
        // A mid-gray spine (150) with darker text strokes, between white neighbours' slivers.
        let long = 200, across = 60
        let (width, height) = layout == .spine ? (across, long) : (long, across)
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let a = layout == .spine ? x : y, l = layout == .spine ? y : x
                guard a >= 10 && a < 50 else { continue }
                pixels[y * width + x] = (a >= 25 && a < 30 && l % 20 < 8) ? 40 : 150
            }
        }
        let photo = try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels))
        let region = TextRegion(layout: layout, box: BoundingBox(x: 0, y: 0, width: width, height: height), lean: 0,
                                typicalThickness: 40, row: 0, index: 0, band: 10...50)
        #expect(try RegionReader.spineGray(photo, region: region) == 150)
        var reader = RegionReader()
        reader.stretchContrast = false  // the spine's 40-150 would be stretched (`dimSpineStretched`)
        reader.spineGrayPadding = true
        for crop in try reader.crops(for: region, in: photo) {
            let corner = try crop.grayBytes().pixels[0]
            #expect(corner == 150, "the padding is \(corner)")
        }
        reader.spineGrayPadding = false
        for crop in try reader.crops(for: region, in: photo) {
            #expect(try crop.grayBytes().pixels[0] == 255)
        }
        // Without a band (a cover), white as before.
        let cover = TextRegion(layout: .cover, box: region.box, lean: 0, typicalThickness: 40, row: 0, index: 0)
        #expect(try RegionReader.spineGray(photo, region: cover) == nil)
    }

    @Test("a line lies on the spine when its middle is within the band (give or take the lean), not on a neighbour's sliver")
    func linesOnTheSpine() {
        let box = BoundingBox(x: 80, y: 0, width: 100, height: 600)
        let upright = TextRegion(layout: .spine, box: box, lean: 0, typicalThickness: 60, row: 0, index: 0, band: 100...160)
        func line(x: Int, y: Int = 250, width: Int = 30) -> BoundingBox { BoundingBox(x: x, y: y, width: width, height: 200) }
        #expect(upright.holds(line(x: 115)))       // middle 130
        #expect(upright.holds(line(x: 145)))       // middle 160: the edge itself
        #expect(!upright.holds(line(x: 160)))      // middle 175: the right neighbour's sliver
        #expect(!upright.holds(line(x: 70)))       // middle 85: the left one's
        // Leaning 5 degrees, a line near the top is shifted by up to tan(5) * 250 = 22 px.
        let leaning = TextRegion(layout: .spine, box: box, lean: 5, typicalThickness: 60, row: 0, index: 0, band: 100...160)
        #expect(leaning.holds(line(x: 165, y: 0, width: 10)))     // middle (170, 100): 200 px above the middle
        #expect(!upright.holds(line(x: 165, y: 0, width: 10)))
        // Lying spines: across is y.
        let lying = TextRegion(layout: .lyingSpine, box: BoundingBox(x: 0, y: 80, width: 600, height: 100), lean: 0,
                               typicalThickness: 60, row: 0, index: 0, band: 100...160)
        #expect(lying.holds(BoundingBox(x: 200, y: 115, width: 200, height: 30)))
        #expect(!lying.holds(BoundingBox(x: 200, y: 160, width: 200, height: 30)))
        // Without a band, and for covers, every line counts.
        #expect(TextRegion(layout: .spine, box: box, lean: 0, typicalThickness: 60, row: 0, index: 0).holds(line(x: 160)))
        #expect(TextRegion(layout: .cover, box: box, lean: 0, typicalThickness: 60, row: 0, index: 0, band: 100...160).holds(line(x: 160)))
    }

    /// A mid-gray spine (Lord of the Flies, gray 100 with darker text) between a black gap and a
    /// light neighbour, in a photo turned 2 degrees: read whole, the crop gives the neighbour's
    /// line and nothing of the spine, and that confident line used to stop any retry.
    @Test("a spine its neighbours' slivers spoil is read from its band alone")
    func bandReadAlone() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-rot2-vignette.jpg")).image
        let box = BoundingBox(x: 674, y: 78, width: 72, height: 694)
        let withBand = TextRegion(layout: .spine, box: box, lean: -2, typicalThickness: 48, row: 0, index: 5, band: 692...730)
        let withoutBand = TextRegion(layout: .spine, box: box, lean: -2, typicalThickness: 48, row: 0, index: 5)
        let (read, unread) = try await offPoolReading { reader, engine in
            return (try reader.read(withBand, in: photo, engine: engine), try reader.read(withoutBand, in: photo, engine: engine))
        }
        #expect(Self.reads("theflies", read), "read: \(read.map(\.text))")
        #expect(!Self.reads("theflies", unread), "without its band the crop reads \(unread.map(\.text))")
        // The line is placed on the spine in the photo, not on the neighbour.
        let line = try #require(read.first { TextStage.letters($0.text).contains("theflies") })
        #expect(withBand.holds(line.box), "\(line.box)")
    }

    /// The same shelf photographed in dim light: every gray squeezed into 20-60. Tesseract's
    /// one threshold then falls between the crop's white padding and everything else, and the
    /// spine comes out black, letters and all (at 20-90 the retries still read "of the Flies").
    @Test("a dim spine is stretched over the whole gray range before reading; a spine with contrast is left alone")
    func dimSpineStretched() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-rot2-vignette.jpg")).image
        let gray = try photo.grayscale().grayBytes()
        let dim = try PixImage(gray: GrayBytes(width: gray.width, height: gray.height,
                                               pixels: gray.pixels.map { 20 + UInt8(Int($0) * 40 / 255) }))
        let region = TextRegion(layout: .spine, box: BoundingBox(x: 674, y: 78, width: 72, height: 694), lean: -2,
                                typicalThickness: 48, row: 0, index: 5, band: 692...730)
        let crop = try dim.cropped(to: region.box)
        let range = try #require(try RegionReader.dimRange(of: crop, region: region))
        #expect(range.black >= 20 && range.white <= 60 && range.white > range.black, "\(range)")
        #expect(try RegionReader.dimRange(of: try photo.cropped(to: region.box).grayscale(), region: region) == nil)
        let (stretched, plain) = try await Self.readWithAndWithout(\.stretchContrast, region, in: dim)
        #expect(Self.reads("theflies", stretched), "stretched: \(stretched.map(\.text)) plain: \(plain.map(\.text))")
        #expect(!Self.reads("theflies", plain), "not stretched: \(plain.map(\.text))")
    }

    /// Rectangles standing in for letters across a standing spine (the text runs down it, so a
    /// letter's height is its width here): dark ones 10 px across, light ones 30 px, and a dark
    /// hole inside each light one (a counter), which must not count as a letter.
    @Test("letter sizes: both shades measured, counters inside the other shade's letters left out, shapes cut by the sides left out")
    func letterSizesMeasured() throws {
        let w = 120, h = 600
        var pixels = [UInt8](repeating: 128, count: w * h)
        func fill(x: Int, y: Int, width: Int, height: Int, _ gray: UInt8) {
            for yy in y..<(y + height) { for xx in x..<(x + width) { pixels[yy * w + xx] = gray } }
        }
        for k in 0..<6 { fill(x: 20, y: 20 + 30 * k, width: 10, height: 8, 20) }      // small dark
        for k in 0..<6 {                                                              // big light, with a counter
            fill(x: 60, y: 240 + 50 * k, width: 30, height: 24, 240)
            fill(x: 70, y: 248 + 50 * k, width: 10, height: 8, 20)
        }
        fill(x: 0, y: 560, width: 40, height: 10, 20)                                  // cut by the side
        let image = try PixImage(gray: GrayBytes(width: w, height: h, pixels: pixels))
        let sizes = try #require(try RegionReader.letterSizes(in: image, standing: true))
        #expect(sizes.count == 12, "\(sizes)")
        #expect(sizes.filter { (9...11).contains($0) }.count == 6 && sizes.filter { (29...31).contains($0) }.count == 6, "\(sizes)")
    }

    /// *Victus* lying in the rendered stack: its title in big bold letters beside the author's
    /// name in small capitals. Scaled for the spine's thickness, the title comes out "Vi u S";
    /// scaled for the small letters, both read.
    @Test("small letters beside big ones are read apart, scaled for their own size")
    func smallLettersReadApart() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("stacks/stack-6-books.jpg")).image
        // The region the spine finder gives for that book (its middle near y 572).
        let regions = try SpineFinder().spines(in: photo).regions
        let region = try #require(regions.first { r in
            r.layout == .lyingSpine && abs(r.box.y + r.box.height / 2 - 572) < 20
        }, "regions: \(regions.map(\.box))")
        let (apart, first) = try await offPoolReading { reader, engine in
            let first = try reader.read(region, in: photo, engine: engine)
            return (try reader.readSmallLetters(region, in: photo, engine: engine, besides: first), first)
        }
        #expect(Self.reads("victus", apart), "small letters: \(apart.map(\.text)), first reading: \(first.map(\.text))")
        #expect(!Self.reads("victus", first), "first reading: \(first.map(\.text))")
        // Nothing more where the letters are all of one size: Persuasion's spine in the same stack.
        let plain = try #require(regions.first { r in r.layout == .lyingSpine && abs(r.box.y + r.box.height / 2 - 703) < 20 })
        let again = try await offPool {
            try RegionReader().readSmallLetters(plain, in: photo, engine: try TesseractEngine(tessdata: Fixtures.models), besides: [])
        }
        #expect(again.isEmpty, "\(again.map(\.text))")
    }

    /// Letters along a standing spine (x across, y along; a letter's height is its width):
    /// big capitals, then small letters after a gap, in words.
    static func letters(_ runs: [(start: Int, count: Int, size: Int, step: Int)], x: Int = 10) -> [BoundingBox] {
        runs.flatMap { run in (0..<run.count).map { k in
            BoundingBox(x: x, y: run.start + k * run.step, width: run.size, height: run.size * 3 / 4)
        } }
    }

    @Test("pieces: a spine's letters cut where their size changes along it, one size's words kept together",
          arguments: [
              // BALDACCI (35 px), then "The Last Mile" (15 px) after a gap of 20: two pieces.
              (letters([(80, 8, 35, 28), (320, 3, 15, 12), (370, 4, 15, 12), (430, 4, 15, 12)]), [35.0, 15.0]),
              // The same with the title touching the name (the gap a pixel or two at a small scale).
              (letters([(80, 8, 35, 28), (302, 11, 15, 12)]), [35.0, 15.0]),
              // Words of one size with word gaps between them: one piece.
              (letters([(40, 5, 20, 16), (130, 6, 20, 16), (240, 4, 20, 16)]), [20.0]),
              // Two lines side by side across the spine (a title over its subtitle), overlapping along it: one piece.
              (letters([(40, 8, 30, 24)], x: 10) + letters([(40, 21, 12, 10)], x: 50), [12.0]),
              // A speck or two far away is no piece.
              (letters([(40, 8, 30, 24), (600, 2, 8, 6)]), [30.0]),
          ])
    func piecesAlongSpine(letters: [BoundingBox], sizes: [Double]) {
        let pieces = RegionReader.pieces(of: letters, standing: true)
        #expect(pieces.map(\.size) == sizes, "\(pieces)")
        #expect(pieces.reduce(0) { $0 + $1.letters } <= letters.count)
        // The same letters lying (along is x, a letter's height is its height).
        let lying = letters.map { BoundingBox(x: $0.y, y: $0.x, width: $0.height, height: $0.width) }
        #expect(RegionReader.pieces(of: lying, standing: false) == pieces)
    }

    /// The letter-sized reading's gate (`RegionReader.readLetterSized`): letters in a row, or grain.
    @Test("letters in a row along a spine are text; as many shapes scattered along it, or too few in a row, are grain",
          arguments: [
              // A word of five letters of 14 px (steps of 12): a row.
              (letters([(100, 5, 14, 12)]), true),
              // A word of four and another of three after a word gap: the four make a row.
              (letters([(100, 4, 14, 12), (170, 3, 14, 12)]), true),
              // Five shapes of one size each 60 px from the next (four letter heights): scattered.
              (letters([(100, 5, 14, 60)]), false),
              // Three letters in a row and two specks far away: too few.
              (letters([(100, 3, 14, 12), (400, 1, 14, 12), (700, 1, 14, 12)]), false),
          ])
    func lettersInRow(letters: [BoundingBox], row: Bool) {
        #expect(RegionReader.holdsRow(letters, standing: true) == row)
        let lying = letters.map { BoundingBox(x: $0.y, y: $0.x, width: $0.height, height: $0.width) }
        #expect(RegionReader.holdsRow(lying, standing: false) == row)
    }

    /// *Slaughterhouse-Five* in the rendered shelf in perspective: read whole it comes out
    /// "fii]"; its letters measure as two pieces of one size parted by the small hyphen's, and
    /// each read alone at its own scale names the book.
    @Test("a spine whose letters come in pieces of different sizes is read piece by piece")
    func piecesReadApart() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-perspective.jpg")).image
        let regions = try SpineFinder().spines(in: photo).regions
        let region = try #require(regions.first { r in
            r.layout == .spine && r.box.x <= 1140 && r.box.x + r.box.width >= 1160 && r.box.width < 80 && r.box.y < 300
        }, "regions: \(regions.map(\.box))")
        let (pieces, first) = try await offPoolReading { reader, engine in
            return (try reader.readPieces(region, in: photo, engine: engine, turns: [3]), try reader.read(region, in: photo, engine: engine))
        }
        #expect(Self.reads("slaughterhouse", pieces), "pieces: \(pieces.map(\.text)), first reading: \(first.map(\.text))")
        #expect(!Self.reads("slaughterhouse", first), "first reading: \(first.map(\.text))")
        #expect(pieces.allSatisfy { region.holds($0.box) })
        // Nothing where the letters are all of one size: Persuasion's spine in the rendered stack.
        let stack = try ImageLoader().load(path: Fixtures.sample("stacks/stack-6-books.jpg")).image
        let plain = try #require(try SpineFinder().spines(in: stack).regions.first { r in
            r.layout == .lyingSpine && abs(r.box.y + r.box.height / 2 - 703) < 20
        })
        let again = try await offPool {
            try RegionReader().readPieces(plain, in: stack, engine: try TesseractEngine(tessdata: Fixtures.models), turns: [0, 2])
        }
        #expect(again.isEmpty, "\(again.map(\.text))")
    }

    /// *Lolita* in the low-resolution rendered shelf: a light spine between dark neighbours.
    /// Padded with white, Tesseract's layout analysis finds no line in its crop at all, either
    /// way up; padded with the spine's own gray, the title reads.
    @Test("a spine where no line was found at all is read again padded with its own gray")
    func grayPaddingRetry() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-lowres-noise.jpg")).image
        let regions = try SpineFinder().spines(in: photo).regions
        let region = try #require(regions.first { r in
            r.layout == .spine && r.box.x <= 480 && r.box.x + r.box.width >= 492 && r.box.width < 60
        }, "regions: \(regions.map(\.box))")
        let (retried, plain) = try await Self.readWithAndWithout(\.grayPaddingRetry, region, in: photo)
        #expect(Self.reads("lolita", retried), "with the retry: \(retried.map(\.text))")
        #expect(!Self.reads("lolita", plain), "without: \(plain.map(\.text))")
    }

    /// *Hija de la fortuna* on the rendered shelf of Spanish, Catalan and French spines: read at
    /// the scale the row's thickness suggests, "HIJA" is dropped as unsure ("de la fortuna nm"),
    /// which names no book; two thirds as large the whole title reads. A spine without a sure
    /// line is not read again.
    @Test("a spine naming no book beside a sure line is read again at another scale, in that line's direction")
    func rescaledReading() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-spanish-catalan-french-btt.jpg")).image
        let regions = try SpineFinder().spines(in: photo).regions
        let region = try #require(regions.first { r in
            r.layout == .spine && r.box.x <= 470 && r.box.x + r.box.width >= 520 && r.box.width < 100 && r.box.y < 300
        }, "regions: \(regions.map(\.box))")
        let (first, smaller, unsure) = try await offPoolReading { reader, engine in
            let first = try reader.read(region, in: photo, engine: engine)
            let smaller = try reader.readRescaled(region, in: photo, engine: engine, factor: 0.67, besides: first)
            let unsure = try reader.readRescaled(region, in: photo, engine: engine, factor: 0.67,
                                                 besides: first.map { ReadLine(text: $0.text, confidence: 60, box: $0.box, textHeight: $0.textHeight, quarterTurns: $0.quarterTurns) })
            return (first, smaller, unsure)
        }
        let matcher = BookMatcher(books: [Book(title: "Hija de la fortuna", authors: ["Isabel Allende"]), Book(title: "La casa de los espíritus", authors: ["Isabel Allende"])])
        func names(_ lines: [ReadLine]) -> Bool { (matcher.matches(for: TextStage.regionText(lines)).first?.score ?? 0) >= 0.6 }
        #expect(names(smaller), "smaller: \(smaller.map(\.text))")
        #expect(!names(first), "first: \(first.map(\.text))")
        #expect(Set(smaller.map(\.quarterTurns)).count <= 1)
        #expect(unsure.isEmpty)
    }

    @Test("where a spine's ink was read both ways, the photo's usual way wins unless the other was read clearly better")
    func usualDirectionWins() {
        let box = BoundingBox(x: 600, y: 580, width: 38, height: 366)
        let title = ReadLine(text: "Cien anos de soledad", confidence: 84, box: box, textHeight: 20, quarterTurns: 1, readingConfidence: 57)
        let upsideDown = ReadLine(text: "pepsjos ep soue us", confidence: 60, box: box, textHeight: 20, quarterTurns: 3, readingConfidence: 60)
        #expect(RegionReader.keepBest([title, upsideDown]).map(\.quarterTurns) == [3])
        #expect(RegionReader.keepBest([title, upsideDown], usual: [1]).map(\.quarterTurns) == [1])
        let clearer = ReadLine(text: "Bodas de sangre", confidence: 90, box: box, textHeight: 20, quarterTurns: 3, readingConfidence: 90)
        #expect(RegionReader.keepBest([title, clearer], usual: [1]).map(\.quarterTurns) == [3])
        // Lines over other ink are all kept.
        let elsewhere = ReadLine(text: "Gabriel Garcia Marquez", confidence: 80, box: BoundingBox(x: 600, y: 1000, width: 38, height: 200),
                                 textHeight: 20, quarterTurns: 3, readingConfidence: 80)
        #expect(RegionReader.keepBest([title, elsewhere], usual: [1]).count == 2)
        // A speck read across the spine ("ae" at 76, inside the title's box) covers little of
        // the title read along it (74): both stay; the speck read along the title's whole box
        // would be the same ink, and the surer reading alone stays.
        let bell = ReadLine(text: "THE BELL JAR", confidence: 80, box: BoundingBox(x: 2510, y: 1300, width: 80, height: 500),
                            textHeight: 60, quarterTurns: 1, readingConfidence: 74)
        let speck = ReadLine(text: "ae", confidence: 76, box: BoundingBox(x: 2530, y: 1400, width: 40, height: 30),
                             textHeight: 20, quarterTurns: 0, readingConfidence: 76)
        #expect(Set(RegionReader.keepBest([bell, speck]).map(\.text)) == ["THE BELL JAR", "ae"])
        let sameInk = ReadLine(text: "ae", confidence: 76, box: BoundingBox(x: 2515, y: 1310, width: 70, height: 470),
                               textHeight: 20, quarterTurns: 0, readingConfidence: 76)
        #expect(RegionReader.keepBest([bell, sameInk]).map(\.text) == ["ae"])
    }

    /// *Stardust* on the rendered row of thin spines: read with its band's margin the spine
    /// gives "e at Neil Gaiman" surely but no title; its band cut to the pixel and read both ways
    /// (as the text stage does for spines naming no book) reads the title. A spine without a
    /// sure line is not read again.
    @Test("a spine naming no book beside a sure line has its band read again alone, both ways")
    func bandReadAgain() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-thin-spines-rot-1.5.jpg")).image
        let regions = try SpineFinder().spines(in: photo).regions
        let region = try #require(regions.first { r in
            r.layout == .spine && r.box.x <= 600 && r.box.x + r.box.width >= 640 && r.box.width < 100
        }, "regions: \(regions.map(\.box))")
        let (first, again, unsure) = try await offPoolReading { reader, engine in
            let first = try reader.read(region, in: photo, engine: engine)
            let again = try reader.readBand(region, in: photo, engine: engine, besides: first)
            let unsure = try reader.readBand(region, in: photo, engine: engine,
                                             besides: first.map { ReadLine(text: $0.text, confidence: 60, box: $0.box, textHeight: $0.textHeight, quarterTurns: $0.quarterTurns) })
            return (first, again, unsure)
        }
        // Turned a degree more than its lean, in one direction: that direction's lines on the spine only.
        let leaned = try await offPool {
            var reader = RegionReader()
            reader.readDeadline = nil
            return try reader.readLeaned(region, in: photo, engine: try TesseractEngine(tessdata: Fixtures.models), delta: 1, turns: [1])
        }
        #expect(!leaned.isEmpty && leaned.allSatisfy { $0.quarterTurns == 1 && region.holds($0.box) }, "leaned: \(leaned.map(\.text))")
        let matcher = BookMatcher(books: [Book(title: "Stardust", authors: ["Neil Gaiman"]), Book(title: "American Gods", authors: ["Neil Gaiman"])])
        func named(_ lines: [ReadLine]) -> String? { Self.named(lines, by: matcher) }
        #expect(named(first) == nil, "first: \(first.map(\.text))")
        #expect(named(RegionReader.keepBest(first + again)) == "Stardust", "again: \(again.map(\.text))")
        #expect(unsure.isEmpty)
    }

    /// Two spines of opposite ways in one region of the rendered Spanish shelf: *Las batallas en
    /// el desierto* read one way, *Bodas de sangre* the other. "ap sepog" (Bodas de upside down,
    /// read surely) covers only part of "Bodas de sangre": both stay whichever way is usual.
    /// Where the two clash (as they did wherever they shared half the smaller box, before the
    /// thirty-second session: the case of a title read whole both ways), the photo's usual way
    /// keeps "ap sepog"; the other way's lines come back because they name a book the photo has
    /// not, and not when it has.
    @Test("a spine's ink read both ways: the way not kept comes back when it names a new book")
    func otherWayNamesABook() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-spanish-catalan-french-btt.jpg")).image
        let regions = try SpineFinder().spines(in: photo).regions
        let region = try #require(regions.first { r in
            r.layout == .spine && r.box.x <= 640 && r.box.x + r.box.width >= 700 && r.box.y < 300
        }, "regions: \(regions.map(\.box))")
        let all = try await offPool {
            var reader = RegionReader()
            reader.readDeadline = nil
            return try reader.read(region, in: photo, engine: try TesseractEngine(tessdata: Fixtures.models), all: true)
        }
        let turns = Set(all.map(\.quarterTurns))
        #expect(turns.count == 2, "\(all.map { "\($0.quarterTurns) \($0.text)" })")
        for t in turns {
            #expect(Self.reads("bodasdesangre", RegionReader.keepBest(all, usual: [t], bonus: 1000, covering: true)),
                    "usual \(t): \(all.map { "\($0.quarterTurns) \($0.text)" })")
        }
        // The way that keeps the upside-down reading where lines clash on the smaller box.
        let usual = try #require(turns.first { t in
            !Self.reads("bodasdesangre", RegionReader.keepBest(all, usual: [t], bonus: 1000, covering: false))
        }, "every way keeps Bodas de sangre: \(all.map { "\($0.quarterTurns) \($0.text)" })")
        let kept = RegionReader.keepBest(all, usual: [usual], bonus: 1000, covering: false)
        let matcher = BookMatcher(books: [Book(title: "Bodas de sangre", authors: ["Federico García Lorca"]),
                                          Book(title: "Las batallas en el desierto", authors: ["José Emilio Pacheco"])])
        let other = try #require(TextStage.otherWay(kept, all: all, named: [], found: [], matcher: matcher, minimumScore: 0.6),
                                 "kept: \(kept.map(\.text)); all: \(all.map(\.text))")
        #expect(Self.reads("bodasdesangre", other), "\(other.map(\.text))")
        #expect(TextStage.otherWay(kept, all: all, named: [], found: ["Bodas de sangre"], matcher: matcher, minimumScore: 0.6) == nil)
    }

    @Test("a line on the spine read too badly to keep beside a good one has the band read again, cut to the pixel")
    func spoiltLineReadAgain() async throws {
        // Persuasion lying in a stack, under a sliver of the book above it: the first reading
        // keeps "Jane Austen" and drops the title line it read with the sliver's half letters.
        let photo = try ImageLoader().load(path: Fixtures.sample("stacks/stack-6-books.jpg")).image
        let box = BoundingBox(x: 151, y: 667, width: 840, height: 72)
        let withBand = TextRegion(layout: .lyingSpine, box: box, lean: 0, typicalThickness: 60, row: 0, index: 4, band: 672...734)
        let withoutBand = TextRegion(layout: .lyingSpine, box: box, lean: 0, typicalThickness: 60, row: 0, index: 4)
        let (read, unread) = try await offPoolReading { reader, engine in
            return (try reader.read(withBand, in: photo, engine: engine), try reader.read(withoutBand, in: photo, engine: engine))
        }
        #expect(Self.reads("persuasion", read) && Self.reads("janeausten", read), "read: \(read.map(\.text))")
        #expect(!Self.reads("persuasion", unread), "without its band the crop reads \(unread.map(\.text))")
        // Lines the first reading had are not added twice.
        #expect(read.filter { TextStage.letters($0.text).contains("janeausten") }.count == 1, "\(read.map(\.text))")
    }

    @Test("a blurred spine nothing was read on confidently is read once more through an unsharp mask")
    func blurredSpineSharpened() async throws {
        // Campos de Castilla on the shelf rendered with a 1.5 px blur: only "ae CASTILLA" (54) is
        // read until the crop is sharpened ("CAMPOS DE" at 72).
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-blur1.5.jpg")).image
        let region = TextRegion(layout: .spine, box: BoundingBox(x: 483, y: 582, width: 66, height: 585), lean: 0,
                                typicalThickness: 52, row: 1, index: 4)
        // Stretching its grays (`dimSpineStretched`) reads this spine too: the sharpened reading
        // is measured alone.
        let (sharpened, plain) = try await Self.readWithAndWithout(\.sharpenedRetry, region, in: photo) { $0.stretchContrast = false }
        #expect(Self.reads("campos", sharpened), "sharpened: \(sharpened.map(\.text))")
        #expect(!Self.reads("campos", plain), "without the sharpened reading: \(plain.map(\.text))")
    }

    /// A lying book shorter than its row: a dark spine with light "letters" from x 300 to 700 of
    /// a 1000 px crop, smooth gray beyond its ends.
    @Test("a spine that stops short of its crop is cut from its first ink to its last; one that fills it is not cut")
    func inkCrop() throws {
        func crop(spine: Range<Int>) throws -> RegionReader.Prepared {
            let w = 1000, h = 100
            var pixels = [UInt8](repeating: 190, count: w * h)
            for y in 30..<70 { for x in spine { pixels[y * w + x] = 40 } }
            for x in stride(from: spine.lowerBound + 60, to: spine.upperBound - 60, by: 14) {
                for y in 40..<60 { for dx in 0..<5 { pixels[y * w + x + dx] = 220 } }
            }
            let image = try PixImage(gray: GrayBytes(width: w, height: h, pixels: pixels))
            return RegionReader.Prepared(sized: image, factor: 1, offsetX: 0, offsetY: 0, background: 255, band: 30..<70)
        }
        let region = TextRegion(layout: .lyingSpine, box: BoundingBox(x: 0, y: 0, width: 1000, height: 100), lean: 0,
                                typicalThickness: 40, row: 0, index: 0, band: 30...70)
        let short = try #require(try RegionReader().inkCrop(try crop(spine: 300..<700), region: region))
        // The book and a margin of half its thickness, no more; mapped back to where it was cut.
        #expect((400...480).contains(short.image.width), "\(short.image.width)")
        #expect((260...300).contains(-short.offset.0), "starts at \(-short.offset.0)")
        #expect(try RegionReader().inkCrop(try crop(spine: 0..<1000), region: region) == nil)
    }

    @Test("a title printed across a standing spine is read upright and placed where it is; a thin spine is not read across")
    func acrossTheSpine() async throws {
        // Dune's front cover stands in for a wide hardback's spine: its title runs across it.
        let photo = try ImageLoader().load(path: Fixtures.sample("covers/cover-dune.jpg")).image
        let wide = TextRegion(layout: .spine, box: BoundingBox(x: 240, y: 120, width: 480, height: 1000), lean: 0,
                              typicalThickness: 460, row: 0, index: 0, band: 250...710)
        let thin = TextRegion(layout: .spine, box: BoundingBox(x: 400, y: 120, width: 70, height: 1000), lean: 0,
                              typicalThickness: 60, row: 0, index: 1, band: 405...465)
        let (lines, thinLines) = try await offPool {
            let engine = try TesseractEngine(tessdata: Fixtures.models)
            return (try RegionReader().readAcross(wide, in: photo, engine: engine),
                    try RegionReader().readAcross(thin, in: photo, engine: engine))
        }
        let dune = try #require(lines.first { $0.text.uppercased().contains("DUNE") }, "read: \(lines.map(\.text))")
        #expect(dune.quarterTurns == 0)
        // DUNE is printed at about x 280-680, y 250-380 of the 960x1280 photo.
        #expect(dune.box.x >= 240 && dune.box.x + dune.box.width <= 720, "\(dune.box)")
        #expect(dune.box.y >= 200 && dune.box.y + dune.box.height <= 430, "\(dune.box)")
        #expect(thinLines.isEmpty, "read: \(thinLines.map(\.text))")
    }

    @Test("a shelf taken the wrong way (regions that read as nothing) is read the other way when that way was found too")
    func otherOrientation() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
        let library = try Evaluator.corpusLibrary(directory: Fixtures.sampleImages)
        let stage = TextStage(workers: OCRWorkers(tessdata: Fixtures.models, size: 2), matcher: try BookMatcher(library: library), minimumScore: 0.6)
        let (w, h) = (photo.width, photo.height)
        // The photo cut into lying books: the reading of a standing shelf taken for a pile.
        let wrong = (0..<4).map { i in
            TextRegion(layout: .lyingSpine, box: BoundingBox(x: 0, y: i * h / 4, width: w, height: h / 4), lean: 0,
                       typicalThickness: Double(h / 4), row: i, index: 0)
        }
        let (alone, fallback, right) = try await offPool {
            let right = try SpineFinder().spines(in: photo)
            let alone = try stage.run(photo, mode: .shelf, spines: (SpineFinder.Layout(regions: wrong, standingEdges: 0, lyingEdges: 4), 0))
            let fallback = try stage.run(photo, mode: .shelf, spines: (SpineFinder.Layout(regions: wrong, standingEdges: 0, lyingEdges: 4,
                                                                                          alternative: right.regions), 0))
            return (alone, fallback, right)
        }
        #expect(alone.books.count <= TextStage.fewBooks, "\(alone.books.map(\.title))")
        #expect(fallback.books.count >= 5, "\(fallback.books.map(\.title))")
        #expect(fallback.regions == right.regions)
        let labelled = try Self.labelled("shelves/shelf-1row-english-ttb.jpg")
        #expect(fallback.books.allSatisfy { labelled.contains(TitleKey.of($0.title ?? "")) })
    }

    @Test("a front cover has no shelf: the spine finder finds (almost) no spine edges")
    func coverHasNoSpines() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("covers/cover-dune.jpg")).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        #expect(layout.regions.count <= 3, "\(layout.regions.count) regions on a cover")
    }

    /// Both shelves are labelled (notes) as at least 89% one way: 15 of 15 top to bottom, 24 of 27
    /// bottom to top. Books read the other way may be the minority's, so three quarters suffice.
    @Test("reading direction: an English shelf reads top to bottom, a European one bottom to top",
          arguments: [("shelves/shelf-1row-english-ttb.jpg", "top-to-bottom"),
                      ("shelves/shelf-2rows-spanish-catalan-french-btt.jpg", "bottom-to-top")])
    func direction(_ image: String, _ expected: String) async throws {
        let result = try await Self.scan(image, mode: .shelf)
        let orientations = result.books.flatMap(\.evidence).compactMap(\.orientation)
        try #require(orientations.count >= 3, "too few books read: \(result.books.map(\.title))")
        let agreeing = orientations.filter { $0 == expected }.count
        #expect(agreeing * 4 >= orientations.count * 3, "\(orientations)")
    }

    @Test("a shelf photo: most of its books, each once, none that is not on the shelf, with text evidence inside the photo",
          arguments: ["shelves/shelf-1row-english-ttb.jpg", "shelves/shelf-1row-mixed.jpg", "shelves/shelf-2rows-jpeg40-leaning.jpg"])
    func shelf(_ image: String) async throws {
        let labelled = try Self.labelled(image)
        let result = try await Self.scan(image)
        #expect(result.error == nil)
        let found = result.books.compactMap(\.title).map(TitleKey.of)
        let invented = found.filter { !labelled.contains($0) }
        #expect(invented.isEmpty, "not on the shelf: \(invented)")
        #expect(Set(found).count == found.count, "a book twice: \(found)")
        #expect(Set(found).count * 2 >= labelled.count, "found \(found.count) of \(labelled.count): \(found)")
        for book in result.books {
            let text = try #require(book.evidence.first { $0.kind == .text })
            #expect((0...100).contains(text.ocrConfidence ?? -1))
            #expect((0.0...1.0).contains(text.matchScore ?? -1))
            #expect((0.0...1.0).contains(book.confidence))
            // Each line of evidence shown once, on one of the regions searched: on it or beside it
            // (a spine is read widened too, in case its edge was found short).
            for e in book.evidence where e.kind == .text {
                let region = try #require(e.region, "\(e.text): no region")
                #expect(result.regions.contains(region), "\(e.text): \(region) is no region of the photo")
                let grow = min(region.width, region.height)
                let around = BoundingBox(x: region.x - grow, y: region.y - grow, width: region.width + 2 * grow, height: region.height + 2 * grow)
                #expect(e.box.intersectionArea(around) > 0, "\(e.text) \(e.box) far from its region \(region)")
                #expect(book.evidence.filter { $0.repeats(e) }.count == 1, "\(e.text) shown twice")
            }
        }
        // Every line read lies inside the photo, even near a deskewed crop's corner.
        for line in result.lines {
            #expect(line.box.x >= 0 && line.box.y >= 0 && line.box.width > 0 && line.box.height > 0, "\(line.text) \(line.box)")
            #expect(line.box.x + line.box.width <= result.width && line.box.y + line.box.height <= result.height, "\(line.text) \(line.box)")
        }
        #expect(zip(result.books, result.books.dropFirst()).allSatisfy { $0.confidence >= $1.confidence }, "ranked by confidence")
    }

    @Test("--annotate: the photo with each region that named a book green, the others blue, each book tagged, and a legend of the books")
    func annotated() async throws {
        let image = "shelves/shelf-1row-english-ttb.jpg"
        let result = try await Self.scan(image)
        let books = result.books.filter { $0.evidence.contains { $0.kind == .text } }
        try #require(!books.isEmpty)
        let folder = try TemporaryDirectory()
        FindingsPicture.write(result, into: folder.path)
        let base = folder.file("shelves__shelf-1row-english-ttb")
        let picture = try ImageLoader().load(path: base + ".png").image
        #expect(picture.width == result.width && picture.height == result.height)
        let legend = try String(contentsOfFile: base + ".txt", encoding: .utf8)
        for book in books { #expect(legend.contains(book.title ?? "?"), "\(book.title ?? "?") not in the legend") }
        // The middle of a region's top edge: green where it named a book, blue where none.
        func top(_ box: BoundingBox) -> (r: UInt8, g: UInt8, b: UInt8) { picture.rgb(x: box.x + box.width / 2, y: box.y + 1) }
        let named = Set(books.flatMap { $0.evidence.compactMap(\.region) })
        #expect(!named.isEmpty)
        for region in named { #expect(top(region) == (0, 200, 0), "\(region): \(top(region))") }
        let unnamed = result.regions.filter { !named.contains($0) }
        #expect(unnamed.isEmpty || unnamed.contains { top($0) == (40, 90, 230) }, "no unnamed region drawn blue")
        // Each book's tag: black letters (1, 1, 1) on its colour, over the line it is anchored
        // to (its largest), where the photo itself had none of that black.
        let photo = try ImageLoader().load(path: Fixtures.sample(image)).image
        for (rank, book) in result.books.enumerated() {
            let label = try #require(FindingsPicture.label(book, rank: rank + 1, rgb: (0, 200, 0)))
            #expect(label.text.hasPrefix("\(rank + 1) "))
            let a = label.anchor
            var letters = 0, patch = 0
            for y in max(0, a.y - 30)..<min(picture.height, a.y + 60) {
                for x in max(0, a.x - 20)..<min(picture.width, a.x + a.width + 20) {
                    let p = picture.rgb(x: x, y: y)
                    if p == (1, 1, 1) && photo.rgb(x: x, y: y) != (1, 1, 1) { letters += 1 }
                    if p == (0, 200, 0) { patch += 1 }
                }
            }
            #expect(letters > 0 && patch > letters, "\(label.text): \(letters) letter and \(patch) tag pixels at \(a)")
        }
    }

    @Test("a leaning region's outline: its band at the row's middle, slanted by its lean along the box")
    func regionOutline() throws {
        var standing = TextRegion(layout: .spine, box: BoundingBox(x: 50, y: 0, width: 150, height: 400), lean: 10,
                                  typicalThickness: 40, row: 0, index: 0)
        #expect(standing.outline == nil, "no band: the box is the outline")
        standing.band = 100...140
        let corners = try #require(standing.outline)
        let shift = 200 * tan(10 * Double.pi / 180)
        // Clockwise: the top right of the band, the bottom left of it.
        let expected = [(100 + shift, 0.0), (140 + shift, 0), (140 - shift, 400), (100 - shift, 400)]
        #expect(corners.count == 4)
        for (c, e) in zip(corners, expected) { #expect(abs(c.x - e.0) < 1e-9 && abs(c.y - e.1) < 1e-9, "\(c) \(e)") }
        // Halfway along, the outline is the band itself.
        #expect(abs((corners[0].x + corners[3].x) / 2 - 100) < 1e-9 && abs((corners[1].x + corners[2].x) / 2 - 140) < 1e-9)
        var lying = TextRegion(layout: .lyingSpine, box: BoundingBox(x: 0, y: 300, width: 600, height: 80), lean: -5,
                               typicalThickness: 30, row: 1, index: 0)
        lying.band = 320...350
        let flat = try #require(lying.outline)
        let drop = 300 * tan(5 * Double.pi / 180)
        // Anticlockwise: the right end higher than the middle, the left end lower.
        #expect(abs(flat[0].y - (320 + drop)) < 1e-9 && abs(flat[1].y - (320 - drop)) < 1e-9)
        #expect(flat[0].x == 0 && flat[1].x == 600 && abs(flat[2].y - (350 - drop)) < 1e-9)
        var upright = standing
        upright = upright.reshaped(lean: 0.2)
        #expect(upright.outline == nil, "under half a degree: the box")
    }

    @Test("the picture draws a leaning region's outline, not its upright box")
    func outlineDrawn() throws {
        let photo = try PixImage(gray: GrayBytes(width: 300, height: 400, pixels: [UInt8](repeating: 255, count: 300 * 400)))
        let outline = [Point(x: 140, y: 20), Point(x: 180, y: 20), Point(x: 120, y: 380), Point(x: 80, y: 380)]
        let picture = try photo.annotated([], outlines: [(outline, (0, 200, 0))])
        // The slanted edge halfway down, and neither upright box edge there.
        #expect(picture.rgb(x: 110, y: 200) == (0, 200, 0))
        #expect(picture.rgb(x: 150, y: 200) == (0, 200, 0))
        #expect(picture.rgb(x: 80, y: 200) == (255, 255, 255))
        #expect(picture.rgb(x: 180, y: 200) == (255, 255, 255))
    }

    @Test("a picture's tags spell titles in the bitmap font's characters",
          arguments: [("Cien años de soledad", "Cien anos de soledad"), ("L\u{2019}Étranger", "L'Etranger"),
                      ("\u{201C}Surely You\u{2019}re Joking\u{201D} \u{2013} Feynman", "\"Surely You're Joking\" - Feynman"),
                      ("東京物語", "????")])
    func printableLabel(title: String, expected: String) {
        #expect(PixImage.printable(title) == expected)
    }

    @Test("lines read at a leaning spine's corner by the photo's edge stay inside the photo (a real shelf)",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func linesInsideRealPhoto() async throws {
        // jo1: a leaning spine at the left edge, read through a deskewed crop, once gave a line
        // at x = -16.
        let path = Fixtures.sharedCorpora + "/shelves/freegle/jo1.jpg"
        var options = ScanOptions()
        options.mode = .shelf
        let scanner = ShelfScanner(options: options, library: try LibraryDatabase.inMemory())
        let result = try await offPool { scanner.scan(path: path) }
        #expect(result.error == nil)
        #expect(!result.lines.isEmpty)
        for line in result.lines {
            #expect(line.box.x >= 0 && line.box.y >= 0 && line.box.width > 0 && line.box.height > 0, "\(line.text) \(line.box)")
            #expect(line.box.x + line.box.width <= result.width && line.box.y + line.box.height <= result.height, "\(line.text) \(line.box)")
        }
    }

    @Test("a spine with a picture beside its title: a block reading names nothing, a sparse reading names it (a real shelf)",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func sparseReading() async throws {
        // adam1: Stephen King paperbacks, the author's face printed between his name and the
        // title; Tesseract's block layout takes the picture for lines and reads junk.
        let photo = try ImageLoader().load(path: Fixtures.sharedCorpora + "/shelves/freegle/adam1.jpg").image
        let regions = try await offPool { try SpineFinder().spines(in: photo).regions }
        let matcher = BookMatcher(books: ["Different Seasons", "Firestarter", "Cujo", "The Shining", "Christine", "Carrie", "Cell"]
            .map { Book(title: $0, authors: ["Stephen King"]) })
        func named(_ lines: [ReadLine]) -> String? { Self.named(lines, by: matcher) }
        // The spines under x = 560 (Different Seasons) and x = 690 (Firestarter) of 1440.
        var gained = 0
        for x in [560, 690] {
            let region = try #require(regions.first { r in r.layout == .spine && r.box.x <= x && r.box.x + r.box.width >= x },
                                      "regions: \(regions.map(\.box))")
            let (block, sparse) = try await offPoolReading { reader, engine in
                return (try reader.read(region, in: photo, engine: engine),
                        try reader.readSparse(region, in: photo, engine: engine, turns: [3]))
            }
            // Sparse lines are on the spine and hold a word's worth of letters.
            for line in sparse {
                #expect(region.holds(line.box) && line.text.filter(\.isLetter).count >= RegionReader.sparseLineLetters, "\(line.text)")
            }
            if let title = named(sparse) {
                #expect(named(block) == nil, "x = \(x): the block reading named \(named(block) ?? "")")
                #expect(named(sparse + block) == title)
                gained += 1
            }
        }
        #expect(gained >= 1, "neither spine named by its sparse reading")
    }

    @Test("a sparse reading lets Tesseract estimate the resolution: a title told 300 reads as nothing is read (a real shelf)",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func sparseResolution() async throws {
        // adam1's Firestarter: white capitals on red beside the author's face. Tesseract's layout
        // analysis of sparse text, told 300 pixels per inch, finds no line there.
        let (photo, region) = try await Self.sharedSpine("freegle/adam1.jpg", x: 690)
        let (told300, estimated) = try await offPoolReading { reader, engine in
            return (try reader.readSparse(region, in: photo, engine: engine, turns: [3], resolution: 300),
                    try reader.readSparse(region, in: photo, engine: engine, turns: [3]))
        }
        let matcher = BookMatcher(books: ["Firestarter", "Different Seasons", "The Shining", "Carrie", "Cujo"]
            .map { Book(title: $0, authors: ["Stephen King"]) })
        func named(_ lines: [ReadLine]) -> String? { Self.named(lines, by: matcher) }
        #expect(named(told300) == nil, "told 300, read \(told300.map(\.text)): the example no longer shows anything")
        #expect(named(estimated) == "Firestarter", "read \(estimated.map(\.text))")
        #expect(RegionReader.sparseResolution <= 70, "a stated resolution over 70 is used as it is, not estimated")
    }

    @Test("a spine a wide local threshold reads nothing on is read with a narrower window and named (a real shelf)",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func fineLocalThreshold() async throws {
        // suzanne5's Colour Blind: faint capitals on a worn spine, 25 px wide in an 800 px photo.
        // Neither the global threshold nor Tesseract's 99 px Sauvola window reads them.
        let (photo, region) = try await Self.sharedSpine("freegle/suzanne5.jpg", x: 45)
        let (wideOnly, both) = try await offPoolReading { reader, engine in
            reader.fineLocalRetry = false
            let wide = try reader.read(region, in: photo, engine: engine)
            reader.fineLocalRetry = true
            return (wide, try reader.read(region, in: photo, engine: engine))
        }
        let matcher = BookMatcher(books: ["Colour Blind", "The Fifteen Streets", "Katie Mulholland", "The Glass Virgin", "Maggie Rowan"]
            .map { Book(title: $0, authors: ["Catherine Cookson"]) })
        func named(_ lines: [ReadLine]) -> String? { Self.named(lines, by: matcher) }
        #expect(named(wideOnly) == nil, "read \(wideOnly.map(\.text)) without it: the example no longer shows anything")
        #expect(named(both) == "Colour Blind", "read \(both.map(\.text))")
    }

    @Test("a spine read as nothing beside other print is read cut to its line of letters and named (a real shelf)",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func tightLine() async throws {
        // bookshelf-4's Sass for Web Designers: a thin spine whose crop reads as nothing; its
        // title's letters, cut out alone, read "SASS FOR WEB DESIGNERS".
        let (photo, region) = try await Self.sharedSpine("booklab/bookshelf-4.jpg", x: 343)
        let (whole, tight) = try await offPoolReading { reader, engine in
            let tight = RegionReader.TightReading(turns: region.quarterTurns, avoiding: [])
            return (try reader.read(region, in: photo, engine: engine),
                    try reader.readPieces(region, in: photo, engine: engine, turns: region.quarterTurns, tight: tight))
        }
        let matcher = BookMatcher(books: [Book(title: "Sass for Web Designers", authors: ["Dan Cederholm"]),
                                          Book(title: "Cover Story", authors: []),
                                          Book(title: "Designing for Emotion", authors: ["Aarron Walter"]),
                                          Book(title: "CSS3 for Web Designers", authors: ["Dan Cederholm"])])
        func named(_ lines: [ReadLine]) -> String? { Self.named(lines, by: matcher) }
        #expect(named(whole) == nil, "read \(whole.map(\.text)) whole: the example no longer shows anything")
        #expect(named(tight) == "Sass for Web Designers", "read \(tight.map(\.text))")
        #expect(tight.allSatisfy { region.holds($0.box) })
    }

    @Test("a spine the fast model names nothing on is read by the second model and named, and nothing off the shelf (a real shelf)",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func secondModel() async throws {
        // vertical_easy: the fast model reads "THE SEA" (and junk) on Iris Murdoch's The Sea, The
        // Sea, too little to name it among the corpus's 615 books; the main model reads it whole.
        let shelves = Fixtures.sharedCorpora + "/shelves"
        let photo = try ImageLoader().load(path: shelves + "/freegle/vertical_easy.jpg").image
        let record = try #require(try TruthRecord.load(directory: shelves).first { $0.image == "freegle/vertical_easy.jpg" })
        let labelled = Set(record.books.map { TitleKey.of($0.title) })
        let matcher = try BookMatcher(library: try Evaluator.corpusLibrary(directory: shelves))
        let fastOnly = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: fastOnly.file("eng.traineddata"),
                                                   withDestinationPath: Fixtures.models + "/eng.traineddata")
        let minimum = ScanOptions().minimumMatchScore
        var with = TextStage(workers: OCRWorkers(tessdata: Fixtures.models, size: 2), matcher: matcher, minimumScore: minimum)
        var without = TextStage(workers: OCRWorkers(tessdata: fastOnly.path, size: 2), matcher: matcher, minimumScore: minimum)
        // No read deadline: under a loaded test run, the deadline cuts readings differently each time.
        with.reader.readDeadline = nil
        without.reader.readDeadline = nil
        // Nor pieces of different sizes read apart, nor the lines across the spines (since the
        // twenty-first session) or cut out along them (since the twenty-second), nor the reading
        // by hue (since the twenty-seventh), which name it with the fast model alone.
        with.readPieces = false
        without.readPieces = false
        with.readByHue = false
        without.readByHue = false
        with.readAcross = false
        without.readAcross = false
        with.readAlong = false
        without.readAlong = false
        let (withSecond, fastAlone) = (with, without)
        let (before, after) = try await offPool {
            let layout = try SpineFinder().spines(in: photo)
            return (try fastAlone.run(photo, mode: .shelf, spines: (layout, 0)), try withSecond.run(photo, mode: .shelf, spines: (layout, 0)))
        }
        let (found, foundAfter) = (Set(before.books.compactMap(\.title).map(TitleKey.of)), Set(after.books.compactMap(\.title).map(TitleKey.of)))
        let sea = TitleKey.of("The Sea, The Sea")
        #expect(!found.contains(sea), "the fast model alone named it: the example no longer shows anything")
        #expect(foundAfter.contains(sea), "found: \(foundAfter.sorted())")
        #expect(foundAfter.subtracting(labelled).isEmpty, "not on the shelf: \(foundAfter.subtracting(labelled).sorted())")
    }

    @Test("engines loaded ahead: every engine of the pool, idle once loaded, none loaded again by the readings after; a model that fails fails them")
    func preload() async throws {
        let pool = OCRWorkers(tessdata: Fixtures.models, size: 2)
        pool.preload()
        // The limit only keeps a broken preload from hanging the test.
        let limit = ContinuousClock.now + .seconds(30)
        while pool.engines.idle < 2, ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(10)) }
        #expect(pool.engines.loaded == 2 && pool.engines.idle == 2, "\(pool.engines)")
        // Both engines held at once: neither is a new one. (The timeouts only keep a broken
        // pool from hanging the test.)
        let loadedWhileHeld = try await offPool { () -> Int in
            let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchGroup()
            for _ in 0..<2 {
                done.enter()
                Thread.detachNewThread {
                    try? pool.withEngine { _ in
                        held.signal()
                        _ = release.wait(timeout: .now() + 10)
                    }
                    done.leave()
                }
            }
            _ = held.wait(timeout: .now() + 10)
            _ = held.wait(timeout: .now() + 10)
            let loaded = pool.engines.loaded
            release.signal()
            release.signal()
            done.wait()
            return loaded
        }
        #expect(loadedWhileHeld == 2)
        let broken = OCRWorkers(tessdata: "/nonexistent-tessdata", size: 2)
        broken.preload()
        #expect(throws: ShelfScanError.self) { try broken.withEngine { _ in } }
    }

    @Test("the next pass read ahead: only once the pass has handed out its spines, on an idle engine, each spine after the pass read it, on its lines and the pass's")
    func passAhead() async throws {
        let regions = (0..<4).map { i in
            TextRegion(layout: .spine, box: BoundingBox(x: 100 * i, y: 0, width: 60, height: 400), lean: 0,
                       typicalThickness: 40, row: 0, index: i)
        }
        @Sendable func line(_ text: String, _ r: Int) -> ReadLine {
            ReadLine(text: text, confidence: 90, box: regions[r].box, textHeight: 30, quarterTurns: 3)
        }
        let pool = OCRWorkers(tessdata: Fixtures.models, size: 1)
        try await offPool { try pool.withEngine { _ in } }
        let counts = ReadCounts(regions.count)
        let ahead = PassAhead(regions: regions, pool: pool)
        defer { ahead.stop() }
        ahead.plan(pass: 3, read: { region, before, _ in
            counts.add(region.index)
            return before.map { line("after " + $0.text, region.index) }
        }, tasks: [PassAhead.Spine(region: 0, key: [1], lines: [line("a", 0)], waits: true),
                   PassAhead.Spine(region: 1, key: [3], lines: [line("b", 1)], waits: false),
                   PassAhead.Spine(region: 2, key: [1], lines: [line("c", 2)], waits: true)], keepingBest: false)
        func settle() async throws { try await Task.sleep(for: .milliseconds(60)) }
        try await settle()
        #expect(counts.values == [0, 0, 0, 0], "read before the pass handed out its spines")
        // The engine held by the pass: nothing read ahead meanwhile.
        let held = try await offPool {
            try pool.withEngine { _ in
                ahead.note(0, [line("x", 0)])
                ahead.openUp()
                Thread.sleep(forTimeInterval: 0.06)
                return counts.values
            }
        }
        #expect(held == [0, 0, 0, 0], "read on an engine the pass held")
        // (The deadline only keeps a broken reader from hanging the test.)
        let deadline = ContinuousClock.now + .seconds(10)
        while counts.values != [1, 1, 0, 0], ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await settle()
        #expect(counts.values == [1, 1, 0, 0], "region 2 waits for the pass's reading of it")
        let (done, pending) = ahead.claim(3)
        #expect(pending.isEmpty)
        #expect(done[0]?.before.map(\.text) == ["a", "x"] && done[0]?.lines.map(\.text) == ["after a", "after x"])
        #expect(done[1]?.before.map(\.text) == ["b"] && done[1]?.key == [3])
        ahead.note(2, [line("y", 2)])
        ahead.openUp()
        try await settle()
        #expect(counts.values == [1, 1, 0, 0], "read after its pass was claimed")
        #expect(ahead.claim(3).done.isEmpty)
    }

    @Test("a reading ahead stands only for a spine the pass reads, on the same lines, with the same inputs")
    func readingsAheadStanding() {
        let box = BoundingBox(x: 0, y: 0, width: 40, height: 400)
        let a = ReadLine(text: "DUNE", confidence: 90, box: box, textHeight: 30, quarterTurns: 3)
        let b = ReadLine(text: "FRANK HERBERT", confidence: 85, box: box, textHeight: 30, quarterTurns: 3)
        let lines = [[a], [a, b], [b], []]
        let read = [ReadLine(text: "ahead", confidence: 70, box: box, textHeight: 30, quarterTurns: 1)]
        let early: [Int: PassAhead.Reading] = [
            0: .init(before: [a], key: [3], lines: read),       // stands
            1: .init(before: [a], key: [3], lines: read),       // its lines have changed since
            2: .init(before: [b], key: [1], lines: read),       // the photo's direction for it has
            3: .init(before: [], key: [3], lines: read),        // not read by the pass
        ]
        let taken = TextStage.standing(early, picked: [0, 1, 2], lines: lines, inputs: { _ in [3] })
        #expect(taken.keys.sorted() == [0])
        #expect(taken[0] == read)
    }

    /// How many times each region was read. `@unchecked Sendable`: `counts` only under `lock`.
    final class ReadCounts: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int]
        init(_ n: Int) { counts = Array(repeating: 0, count: n) }
        func add(_ i: Int) { lock.lock(); counts[i] += 1; lock.unlock() }
        var values: [Int] { lock.lock(); defer { lock.unlock() }; return counts }
    }

    @Test("a front cover: auto mode reads it as a cover and names the book first")
    func cover() async throws {
        let image = "covers/cover-dune.jpg"
        let labelled = try Self.labelled(image)
        let result = try await Self.scan(image)
        let first = try #require(result.books.first, "no book found on \(image)")
        #expect(labelled.contains(TitleKey.of(first.title ?? "")))
    }

    /// `image` (SampleImages) through the text stage in auto mode, with the corpus's books:
    /// with the whole photo read first where laid out like a cover, and without.
    static func coverFirst(_ image: String) async throws -> (first: TextFindings, spines: TextFindings, photo: PixImage, layout: SpineFinder.Layout) {
        let photo = try ImageLoader().load(path: Fixtures.sample(image)).image
        let matcher = try BookMatcher(library: try Evaluator.corpusLibrary(directory: Fixtures.sampleImages))
        var stage = TextStage(workers: OCRWorkers(tessdata: Fixtures.models, size: 2), matcher: matcher,
                              minimumScore: ScanOptions().minimumMatchScore)
        stage.readCoverFirst = true
        let first = stage
        stage.readCoverFirst = false
        let spines = stage
        let (a, b, layout) = try await offPool {
            (try first.run(photo, mode: .auto), try spines.run(photo, mode: .auto), try SpineFinder().spines(in: photo))
        }
        return (a, b, photo, layout)
    }

    @Test("a front cover whose lines lie with no book's edge between them is read whole first: the same book, its title and author as evidence")
    func coverReadFirst() async throws {
        let image = "covers/cover-bonjour-tristesse-blur2.jpg"
        let (first, spines, photo, layout) = try await Self.coverFirst(image)
        #expect(TextStage.coverLike(layout), "regions: \(layout.regions.map { ($0.layout, $0.window) })")
        // Read as spines (the trigger off), its lines are lying regions; read first, the whole photo.
        #expect(!spines.regions.isEmpty && spines.regions.allSatisfy { $0.layout == .lyingSpine })
        #expect(first.regions.map(\.box) == [BoundingBox(x: 0, y: 0, width: photo.width, height: photo.height)])
        let labelled = try Self.labelled(image)
        #expect(first.books.map { TitleKey.of($0.title ?? "") }.filter(labelled.contains).count == 1)
        #expect(first.books.map(\.title) == spines.books.map(\.title))
        // Every sure line read is the book's, the author's among them.
        let words = try TextStage.FoundWords(#require(first.books.first))
        #expect(first.lines.filter { $0.confidence >= 80 }.allSatisfy { words.explain($0.text, titleWord: false) })
        #expect(Self.reads("sagan", first.lines), "\(first.lines.map(\.text))")
    }

    @Test("a stack read whole names one of its books surely, but its other titles are left over: not taken for a cover",
          arguments: ["stacks/stack-6-books.jpg", "stacks/stack-10-books-perspective-blur1.2.jpg"])
    func stackIsNoCover(image: String) async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample(image)).image
        let matcher = try BookMatcher(library: try Evaluator.corpusLibrary(directory: Fixtures.sampleImages))
        let stage = TextStage(workers: OCRWorkers(tessdata: Fixtures.models, size: 2), matcher: matcher,
                              minimumScore: ScanOptions().minimumMatchScore)
        let whole = try await offPool { try stage.run(photo, mode: .cover) }
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        #expect(!TextStage.coverLike(layout), "its books' edges part its lines")
        let book = try #require(whole.books.first, "the stack read whole named nothing; the example no longer shows anything")
        #expect(whole.books.count == 1 && book.confidence >= 0.9, "\(whole.books.map { ($0.title, $0.confidence) })")
        #expect(!TextStage.coverAccounts(for: whole.lines, books: whole.books))
        // The same lines with the other books' titles dropped are the one book's.
        let words = TextStage.FoundWords(book)
        #expect(TextStage.coverAccounts(for: whole.lines.filter { words.explain($0.text, titleWord: false) }, books: whole.books))
    }

    @Test("a whole photo is a cover when it names one book surely and every sure line is that book's",
          arguments: [
              (["ZEN AND THE ART", "OF MOTORCYCLE", "MAINTENANCE", "ROBERT M. PIRSIG"], [96.0, 96, 95, 94], 0.99, 1, true),
              (["Zen and the Art", "of Motorcycle Maintenance", "An Inquiry into Values"], [96.0, 96, 96], 0.99, 1, true),
              (["ZEN AND THE ART", "OF MOTORCYCLE", "PERSUASION"], [96.0, 96, 95], 0.99, 1, false),      // another title left over
              (["ZEN AND THE ART", "OF MOTORCYCLE", "PERSUASION"], [96.0, 96, 60], 0.99, 1, true),       // unsure: not read
              (["ZEN AND THE ART", "OF MOTORCYCLE", "a 9 /"], [96.0, 96, 95], 0.99, 1, true),            // no word of three letters
              (["ZEN AND THE ART", "OF MOTORCYCLE"], [96.0, 96], 0.85, 1, false),                       // not sure of the book
              (["ZEN AND THE ART", "OF MOTORCYCLE"], [96.0, 96], 0.99, 2, false),                       // two books
              ([], [], 0.99, 0, false),                                                                  // nothing named
          ])
    func coverAccounts(texts: [String], confidences: [Double], confidence: Double, books: Int, cover: Bool) {
        let lines = zip(texts, confidences).enumerated().map { i, t in
            ReadLine(text: t.0, confidence: t.1, box: BoundingBox(x: 100, y: 100 + 80 * i, width: 500, height: 60), textHeight: 40, quarterTurns: 0)
        }
        let zen = BookEntity(title: "Zen and the Art of Motorcycle Maintenance", subtitle: "An Inquiry into Values",
                             authors: ["Robert M. Pirsig"], isbn13: nil, isbn10: nil, inLibrary: false, libraryId: nil,
                             readingStatus: nil, source: "library", publisher: nil, year: nil, coverURL: nil,
                             confidence: confidence, evidence: [])
        var other = zen
        other.title = "Persuasion"
        #expect(TextStage.coverAccounts(for: lines, books: Array([zen, other].prefix(books))) == cover)
    }

    /// SampleImages' small Dune in a 720p frame through the text stage (SampleImages' books),
    /// first with neither of the cover's second readings, then with `again` (the whole photo read
    /// again as one block) and `windows` (the photo's corner windows) as given.
    static func smallDune(again: Bool, windows: Bool) async throws -> (before: TextFindings, after: TextFindings, photo: PixImage) {
        let photo = try ImageLoader().load(path: Fixtures.sample("covers/cover-dune-small-720p.jpg")).image
        let matcher = try BookMatcher(library: try Evaluator.corpusLibrary(directory: Fixtures.sampleImages))
        var stage = TextStage(workers: OCRWorkers(tessdata: Fixtures.models, size: 2), matcher: matcher,
                              minimumScore: ScanOptions().minimumMatchScore)
        stage.readCoverAgain = false
        stage.readCoverWindows = false
        let once = stage
        stage.readCoverAgain = again
        stage.readCoverWindows = windows
        let twice = stage
        let (before, after) = try await offPool { (try once.run(photo, mode: .auto), try twice.run(photo, mode: .auto)) }
        return (before, after, photo)
    }

    @Test("a cover small in a webcam frame: read again as one block, locally thresholded, where the first reading named nothing")
    func smallCover() async throws {
        // DUNE, dark brown on orange beside a light cloth: Tesseract's page analysis over the
        // whole frame and its one threshold read the author's name and no title.
        let (before, after, _) = try await Self.smallDune(again: true, windows: false)
        #expect(before.books.isEmpty, "named at first: \(before.books.map(\.title)); the example no longer shows anything")
        #expect(after.books.map(\.title) == ["Dune"])
        #expect(after.books.first?.evidence.contains { TextStage.letters($0.text).contains("dune") } == true)
    }

    @Test("a cover small in a frame: found through the photo's windows alone, when the whole photo's readings are left out")
    func coverWindows() async throws {
        let (before, after, photo) = try await Self.smallDune(again: false, windows: true)
        #expect(before.books.isEmpty, "named at first: \(before.books.map(\.title)); the example no longer shows anything")
        #expect(after.books.map(\.title) == ["Dune"])
        // The region it was read in is one of the windows, and its evidence lies inside it.
        let region = try #require(after.regions.first)
        #expect(TextStage.coverWindows(width: photo.width, height: photo.height).map(\.box).contains(region.box))
        #expect(after.books.first?.evidence.allSatisfy { region.holds($0.box) } == true)
    }

    @Test("cover windows: four, each seven tenths of the photo and inside it, one holding any box up to two fifths of it")
    func coverWindowGeometry() {
        for (w, h) in [(1280, 720), (640, 480), (4032, 3024), (101, 57)] {
            let windows = TextStage.coverWindows(width: w, height: h)
            #expect(windows.count == 4)
            for r in windows {
                #expect(r.layout == .cover && r.box.width >= w * 7 / 10 && r.box.height >= h * 7 / 10)
                #expect(r.box.width * 10 <= w * 7 + 9 && r.box.height * 10 <= h * 7 + 9)
                #expect(r.box.x >= 0 && r.box.y >= 0 && r.box.x + r.box.width <= w && r.box.y + r.box.height <= h)
            }
            // Boxes of two fifths of the photo at every place on a grid.
            let bw = w * 2 / 5, bh = h * 2 / 5
            for x in stride(from: 0, through: w - bw, by: max(1, w / 20)) {
                for y in stride(from: 0, through: h - bh, by: max(1, h / 20)) {
                    #expect(windows.contains { r in
                        r.box.x <= x && r.box.y <= y && x + bw <= r.box.x + r.box.width && y + bh <= r.box.y + r.box.height
                    }, "\(w)x\(h): no window holds \(bw)x\(bh) at \(x),\(y)")
                }
            }
        }
    }

    /// Against an empty library nothing can match: the titles read must come back as
    /// unidentified text (not be lost when auto mode then tries the photo as a cover and reads
    /// nothing there either), and the spine regions stay in the result for the picture.
    @Test("a shelf whose books are in no library: its titles come back as unidentified text, its spines as regions")
    func unknownBooksAreUnidentified() async throws {
        let image = "shelves/shelf-1row-english-ttb.jpg"
        let labelled = try Self.labelled(image)
        let scanner = ShelfScanner(options: ScanOptions(), library: try LibraryDatabase.inMemory())
        let result = try await offPool { scanner.scan(path: Fixtures.sample(image)) }
        #expect(result.error == nil)
        #expect(result.books.isEmpty, "\(result.books.map(\.title))")
        // Some labelled title shows up, whole, in an unidentified line.
        let texts = result.unidentified.map { TitleKey.of($0.text) }
        #expect(labelled.contains { title in texts.contains { $0.contains(title) } },
                "unidentified: \(result.unidentified.map(\.text))")
        #expect(result.regions.count >= labelled.count / 2, "\(result.regions.count) regions kept")
    }

    @Test("a crop read as nothing either way is read once more, not retried every way; spines read surely are untouched")
    func blankCrops() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-2rows-blur1.5.jpg")).image
        let (cut, kept) = try await offPool { () -> ([Int], Int) in
            // The top row (the test reads every crop twice).
            let regions = try SpineFinder().spines(in: photo).regions.filter { $0.row == 0 }
            let engine = try TesseractEngine(tessdata: Fixtures.models)
            var reader = RegionReader()
            reader.readDeadline = nil
            var cut: [Int] = [], kept = 0
            for region in regions {
                let before = engine.recognitions
                let gated = try reader.read(region, in: photo, engine: engine)
                let gatedCost = engine.recognitions - before
                let full = try reader.read(region, in: photo, engine: engine, mayBeBlank: false)
                let fullCost = engine.recognitions - before - gatedCost
                // Read surely the first time: the same lines either way.
                if gated.contains(where: { $0.confidence >= 80 }) {
                    #expect(gated.map(\.text) == full.map(\.text), "\(region.box)")
                    #expect(gatedCost == fullCost, "\(region.box)")
                    kept += 1
                } else if gatedCost < fullCost {
                    // Each way, then each way with a local threshold (no direction votes here):
                    // no band, ink or sharpened retries.
                    #expect(gatedCost <= 2 * region.quarterTurns.count, "\(region.box): \(gatedCost) recognitions")
                    #expect(!gated.contains { $0.confidence >= 80 }, "\(region.box)")
                    cut.append(fullCost - gatedCost)
                }
            }
            return (cut, kept)
        }
        // The rendered bookcase has blank stretches (its sides, the gaps) and spines read well.
        #expect(!cut.isEmpty, "no crop was read as blank")
        #expect(kept >= 5)
    }

    @Test("a photo without books gives no book", arguments: ["none"])
    func noBooks(_ set: String) async throws {
        let images = Self.truth.keys.filter { $0.hasPrefix(set + "/") }.sorted()
        try #require(!images.isEmpty)
        for image in images {
            let result = try await Self.scan(image)
            #expect(result.books.isEmpty, "\(image): \(result.books.map(\.title))")
        }
    }

    @Test("--mode barcode reads no text: a shelf gives no book and no OCR time")
    func barcodeMode() async throws {
        let result = try await Self.scan("shelves/shelf-1row-english-ttb.jpg", mode: .barcode)
        #expect(result.books.isEmpty)
        #expect(result.timings.ocr == 0)
    }
}
