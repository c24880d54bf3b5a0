import Foundation

/// The books, as words and character trigrams, in memory: built once per process (a 100k-row
/// catalogue takes a fraction of a second), then read by every photo.
struct BookIndex: Sendable {
    let books: Entries
    /// The entries of the reader's own books (`Book.owned`), for the shortlist's own places.
    let ownedEntries: [Int32]

    // Vocabulary: every title and author word, once.
    let wordIDs: [String: Int32]
    let wordScalars: [[Unicode.Scalar]]
    /// How much a word says about which book a spine is (see `BookIndex.evidence`).
    let wordEvidence: [Double]
    /// How far a word read alone is evidence of a title rather than of a name: 1 for most words;
    /// for words the catalogue uses more in authors' names than in titles ("James": 15 titles,
    /// 352 names in the 25k catalogues), their share of title uses, at least a half. A spine
    /// reading only "JAMES" is more likely James Patterson's than the novel "James".
    let titleWeight: [Double]
    /// Whether any author's name holds the word ("Emma": a spine reading only EMMA may be the
    /// first line of EMMA DONOGHUE).
    let nameWord: [Bool]

    // Per book, as word ids.
    let core: [[Int32]]
    let extra: [[Int32]]
    let authors: [[[Int32]]]
    /// Every author's full name of two or three words of letters, as its sorted word ids (word
    /// order varies: "Patterson, James").
    let fullNames: Set<[Int32]>
    /// The full names (`fullNames` keys) each word is part of.
    let namesWithWord: [Int32: [[Int32]]]
    /// Per book, which core title words spell one of its authors' full names, or nil
    /// (`BookMatcher.ownNameWords`): "Stephen King's N." needs a title word beyond the name.
    let titleNameWords: [[Bool]?]
    /// Same book, twice in the library (an owned copy and a catalogue row, two editions): same key.
    let bookKeys: [String]
    /// Per book, whether no other work (`bookKeys`) has the same core title words: a spine
    /// reading nothing but the title can then name only this book.
    let uniqueTitle: [Bool]
    /// Per book, how many of its first core title words are a series' name that many works'
    /// titles begin with ("The Rough Guide to", "Harry Potter and the", "Isadora Moon"): spines
    /// print those small or as a logo, and they say only which series, not which book
    /// (`seriesPrefixes`). 0 for most titles.
    let seriesWords: [Int]
    /// Per book, when its whole core title is a known author's full name (a biography or a picture
    /// book titled "Agatha Christie", an autobiography titled with its author's name): that name's
    /// sorted word ids. Every spine by that author reads it (`BookMatcher.score`).
    let titleName: [[Int32]?]
    /// Per author's full name (`fullNames` key), the works (`bookKeys`) the reader owns by them:
    /// one book index each (`BookMatcher.ownedWorks`).
    let ownedWorks: [[Int32]: [Int32]]

    // Title trigrams -> books (compressed rows: books of trigram t are `trigramBooks[start[t]..<start[t+1]]`).
    let trigramIDs: [UInt64: Int32]
    let trigramStart: [Int32]
    let trigramBooks: [Int32]
    let trigramWeight: [Float]
    /// Square root of the summed weights of each book's trigrams.
    let titleNorm: [Float]

    // Author words -> books.
    let authorStart: [Int32]
    let authorBooks: [Int32]
    let authorWeight: [Float]

    /// Distinct books (`books` also holds a second entry for each book that a subtitle can stand for).
    let distinctBooks: Int
    /// Per subtitle entry (`books[distinctBooks...]`), the book it stands for (an index below
    /// `distinctBooks`).
    let subtitleEntryBooks: [Int32]
    /// Word credits against spine units already worked out with this index's vocabulary.
    let creditMemo = CreditMemo()
    /// Whether entry `b` is a book under its subtitle (`MatchText.subtitleTitle`): those come
    /// after the books' own entries.
    func isSubtitleEntry(_ b: Int) -> Bool { b >= distinctBooks }

    init(books given: [Book]) {
        // Each book, and again under its subtitle where a spine may print that alone
        // (`MatchText.subtitleTitle`): the subtitle is the second entry's core title, the title
        // its extra words. Only subtitles no other work has as subtitle or title: "A Very Short
        // Introduction" says which series, not which book.
        // Normalising titles and names is most of the build (about 1.2 s of 1.5 for 25,000 books,
        // 3 s for 100,000): done on every core.
        var titles = Self.concurrentMap(given) { MatchText.title($0.title, subtitle: $0.subtitle) }
        var nameWords = Self.concurrentMap(given) { $0.authors.prefix(3).map(MatchText.authorWords) }
        // The work each entry is (a subtitle's entry is its book's work).
        var workOf = titles.map(\.work)
        var subtitleEntryBooks: [Int32] = []
        if MatchText.subtitleWords > 0 {
            // Every subtitle of `ownedSubtitleWords` telling words is counted below, so that one
            // the reader's book shares with a catalogue row stands for neither; the catalogue's
            // stand for their books from `subtitleWords`.
            let loose = Self.concurrentMap(given) { MatchText.subtitleTitle($0.title, subtitle: $0.subtitle, telling: MatchText.ownedSubtitleWords) }
            let aliases = zip(loose, given).map { a, book in
                book.owned || MatchText.tellingWords(a) >= MatchText.subtitleWords ? a : []
            }
            // A work is its title's work and its first author's name words in any order ("Vise,
            // David A." is "David A. Vise"); a row crediting no one is the same work as the one
            // row of that title crediting someone (`creditingOne`).
            var works: [String: Set<String>] = [:]
            let authorKeys = nameWords.map { $0.first.map { $0.sorted().joined(separator: " ") } ?? "" }
            for (i, t) in titles.enumerated() { works[t.core.joined(separator: " "), default: []].insert(t.work + "|" + authorKeys[i]) }
            for (i, a) in loose.enumerated() where !a.isEmpty {
                works[a.joined(separator: " "), default: []].insert(titles[i].work + "|" + authorKeys[i])
            }
            // Nor subtitles naming other works ("4-Book Boxed Set: The Hobbit and The Lord of the
            // Rings", "Three Novels: ..."): none may hold another title of two words or more.
            let longTitles = Set(titles.filter { $0.core.count >= 2 }.map { $0.core.joined(separator: " ") })
            // Nor subtitles holding an author's name ("Haunted Heart: The Life and Times of Stephen
            // King"): every spine of that author's reads it.
            let authorNames = Set(nameWords.joined().filter { (2...3).contains($0.count) }.map { $0.joined(separator: " ") })
            func namesAnother(_ a: [String]) -> Bool {
                for length in 2...max(2, a.count) {
                    for start in 0...max(0, a.count - length) {
                        let run = a[start..<min(a.count, start + length)].joined(separator: " ")
                        if (length <= 3 && authorNames.contains(run)) || (length < a.count && longTitles.contains(run)) { return true }
                    }
                }
                return false
            }
            for (i, a) in aliases.enumerated() where !a.isEmpty && Set(Self.creditingOne(Array(works[a.joined(separator: " ")] ?? []))).count == 1
                && !namesAnother(a) {
                let t = titles[i]
                subtitleEntryBooks.append(Int32(i))
                nameWords.append(nameWords[i])
                titles.append(MatchText.Title(core: a, extra: t.core + t.extra, volume: t.volume))
                workOf.append(t.work)
            }
        }
        let books = Entries(books: given, again: subtitleEntryBooks)
        self.books = books
        self.ownedEntries = books.indices.filter { books[$0].owned }.map { Int32($0) }
        self.distinctBooks = given.count
        self.subtitleEntryBooks = subtitleEntryBooks
        var wordIDs: [String: Int32] = [:]
        var wordScalars: [[Unicode.Scalar]] = []
        func intern(_ w: String) -> Int32 {
            if let id = wordIDs[w] { return id }
            let id = Int32(wordScalars.count)
            wordIDs[w] = id
            wordScalars.append(Array(w.unicodeScalars))
            return id
        }
        var core: [[Int32]] = [], extra: [[Int32]] = [], authors: [[[Int32]]] = [], keys: [String] = []
        core.reserveCapacity(books.count); extra.reserveCapacity(books.count); authors.reserveCapacity(books.count)
        for ((bookNames, t), work) in zip(zip(nameWords, titles), workOf) {
            core.append(t.core.map(intern))
            extra.append(t.extra.map(intern))
            let names = bookNames.map { $0.map(intern) }.filter { !$0.isEmpty }
            authors.append(names)
            // The surname is the longest word more often than the last ("Belmonte Nieto, Manuel").
            let surname = names.first.map { n in n.map { wordScalars[Int($0)] }.max { $0.count < $1.count }.map { String(String.UnicodeScalarView($0)) } ?? "" } ?? ""
            // One work, whatever the edition: "&" reads as nothing, so "and" does not count; a
            // volume number makes another book (`MatchText.Title.work`).
            keys.append(work + "|" + surname)
        }
        keys = Self.creditingOne(keys)
        self.wordIDs = wordIDs
        self.wordScalars = wordScalars
        self.wordEvidence = wordScalars.map { Self.evidence(String(String.UnicodeScalarView($0))) }
        var inTitles = [Int](repeating: 0, count: wordScalars.count), inNames = inTitles
        // Statistics over the books' own titles: subtitle entries change no other book's score.
        for c in core.prefix(given.count) { for w in Set(c) { inTitles[Int(w)] += 1 } }
        for a in authors.prefix(given.count) { for w in Set(a.joined()) { inNames[Int(w)] += 1 } }
        self.titleWeight = zip(inTitles, inNames).map { t, n in
            n > t ? max(0.5, Double(t) / Double(t + n)) : 1
        }
        self.nameWord = inNames.map { $0 > 0 }
        self.core = core
        self.extra = extra
        self.authors = authors
        self.bookKeys = keys
        var works: [[Int32]: Set<String>] = [:]
        for (c, k) in zip(core.prefix(given.count), keys) { works[c, default: []].insert(k) }
        self.uniqueTitle = core.map { works[$0].map { $0.count == 1 } ?? true }
        self.seriesWords = Self.seriesPrefixes(core: Array(core.prefix(given.count)), keys: Array(keys.prefix(given.count)),
                                               words: wordScalars, evidence: wordEvidence)
            + [Int](repeating: 0, count: core.count - given.count)
        self.titleNameWords = zip(core, authors).map { BookMatcher.ownNameWords(core: $0, authors: $1, words: wordScalars) }
        // Names only: words of two or more letters ("Kershaw, Ian, 1943-" carries its dates).
        let fullNames = Set(authors.flatMap { $0 }.filter { name in
            (2...3).contains(name.count) && name.allSatisfy { w in
                wordScalars[Int(w)].count >= 2 && wordScalars[Int(w)].allSatisfy(\.properties.isAlphabetic)
            }
        }.map { $0.sorted() })
        self.fullNames = fullNames
        self.titleName = core.map { c in
            let key = c.sorted()
            return fullNames.contains(key) ? key : nil
        }
        self.namesWithWord = Self.namesWithWord(fullNames)
        self.ownedWorks = Self.ownedWorks(books: books, authors: authors, fullNames: fullNames, keys: keys)

        // Trigram postings, counted then filled.
        var trigramIDs: [UInt64: Int32] = [:]
        var perBook: [Int32] = []
        var bookStart: [Int] = [0]
        var counts: [Int32] = []
        var scratch: [UInt64] = []
        for words in core {
            scratch.removeAll(keepingCapacity: true)
            for w in words { Self.trigrams(of: wordScalars[Int(w)], into: &scratch) }
            scratch.sort()
            var last: UInt64 = .max
            for g in scratch where g != last {
                last = g
                let id: Int32
                if let known = trigramIDs[g] { id = known } else {
                    id = Int32(counts.count); trigramIDs[g] = id; counts.append(0)
                }
                counts[Int(id)] += 1
                perBook.append(id)
            }
            bookStart.append(perBook.count)
        }
        var start = [Int32](repeating: 0, count: counts.count + 1)
        for i in counts.indices { start[i + 1] = start[i] + counts[i] }
        var fill = Array(start.dropLast())
        var postings = [Int32](repeating: 0, count: perBook.count)
        for b in 0..<books.count {
            for k in bookStart[b]..<bookStart[b + 1] {
                let t = Int(perBook[k])
                postings[Int(fill[t])] = Int32(b)
                fill[t] += 1
            }
        }
        let n = Float(max(1, given.count))
        let weights = counts.map { logf(1 + n / Float($0)) }
        var norm = [Float](repeating: 1, count: books.count)
        for b in 0..<books.count {
            var sum: Float = 0
            for k in bookStart[b]..<bookStart[b + 1] { sum += weights[Int(perBook[k])] }
            norm[b] = max(1, sum).squareRoot()
        }
        self.trigramIDs = trigramIDs
        self.trigramStart = start
        self.trigramBooks = postings
        self.trigramWeight = weights
        self.titleNorm = norm

        // Author word postings.
        var authorCounts = [Int32](repeating: 0, count: wordScalars.count)
        var authorPairs: [(Int32, Int32)] = []
        // A book's own entry only: its name brings the book in, not its subtitle entry too.
        for (b, names) in authors.prefix(given.count).enumerated() {
            var seen = Set<Int32>()
            for name in names { for w in name where wordScalars[Int(w)].count >= 3 && seen.insert(w).inserted {
                authorCounts[Int(w)] += 1
                authorPairs.append((w, Int32(b)))
            } }
        }
        var aStart = [Int32](repeating: 0, count: wordScalars.count + 1)
        for i in authorCounts.indices { aStart[i + 1] = aStart[i] + authorCounts[i] }
        var aFill = Array(aStart.dropLast())
        var aBooks = [Int32](repeating: 0, count: authorPairs.count)
        for (w, b) in authorPairs { aBooks[Int(aFill[Int(w)])] = b; aFill[Int(w)] += 1 }
        self.authorStart = aStart
        self.authorBooks = aBooks
        self.authorWeight = authorCounts.map { $0 == 0 ? 0 : logf(1 + n / Float($0)) }
    }

    /// The full names each word is part of (`namesWithWord`).
    static func namesWithWord(_ fullNames: Set<[Int32]>) -> [Int32: [[Int32]]] {
        var namesWithWord: [Int32: [[Int32]]] = [:]
        for name in fullNames { for w in Set(name) { namesWithWord[w, default: []].append(name) } }
        return namesWithWord
    }

    /// Per full name, the reader's works by that author, one entry each (`ownedWorks`).
    static func ownedWorks(books: Entries, authors: [[[Int32]]], fullNames: Set<[Int32]>, keys: [String]) -> [[Int32]: [Int32]] {
        var ownedWorks: [[Int32]: [Int32]] = [:]
        for (b, book) in books.enumerated() where book.owned {
            for name in Set(authors[b].map { $0.sorted() }) where fullNames.contains(name) {
                let works = ownedWorks[name, default: []]
                if !works.contains(where: { keys[Int($0)] == keys[b] }) { ownedWorks[name] = works + [Int32(b)] }
            }
        }
        return ownedWorks
    }

    /// `keys` ("work|author") with each key crediting no one ("work|": the reader's copy entered
    /// without its author) replaced by the one key of its work that credits someone, where
    /// exactly one does: those rows are one work.
    static func creditingOne(_ keys: [String]) -> [String] {
        var credited: [Substring: Set<String>] = [:]
        for k in keys where !k.hasSuffix("|") { credited[k[..<(k.lastIndex(of: "|") ?? k.endIndex)], default: []].insert(k) }
        return keys.map { k in
            guard k.hasSuffix("|"), let named = credited[k.dropLast()], named.count == 1, let only = named.first else { return k }
            return only
        }
    }

    /// `transform` of each of `items`, in order, on every core (in order on one for a few).
    static func concurrentMap<T, R>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] where T: Sendable {
        let chunks = items.count < 2_000 ? 1 : 4 * ProcessInfo.processInfo.activeProcessorCount
        guard chunks > 1 else { return items.map(transform) }
        let parts = ResultSlots<[R]>(count: chunks)
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            parts.set(c, items[items.count * c / chunks..<items.count * (c + 1) / chunks].map(transform))
        }
        return parts.values.flatMap { $0! }
    }

    /// A word's trigrams, with `^` and `$` marking its ends (a one-letter word is `^a$`).
    static func trigrams(of word: [Unicode.Scalar], into out: inout [UInt64]) {
        // Look-alike letters share a class, so an OCR slip does not lose the trigrams around it.
        let padded: [UInt64] = [0x5E] + word.map { UInt64(lookAlikeClass($0).value) } + [0x24]
        for i in 0..<(padded.count - 2) {
            out.append(padded[i] << 42 | padded[i + 1] << 21 | padded[i + 2])
        }
    }

    @inline(__always)
    static func lookAlikeClass(_ c: Unicode.Scalar) -> Unicode.Scalar {
        switch c {
        case "l", "j": "i"
        case "c": "e"
        case "v": "u"
        case "h": "n"
        case "f": "t"
        default: c
        }
    }

    /// Works sharing the first title words that make those words a series' name (`seriesWords`).
    static let seriesWorks = Int(ProcessInfo.processInfo.environment["SHELFSCAN_SERIES_WORKS"] ?? "") ?? 5

    /// Per title (`core`), the length of its longest beginning of two to five words, two of them
    /// words of substance (three letters or more, not common: "Rough Guide", "Harry Potter",
    /// not "The Story of", "How to"), that `seriesWorks` other works' titles also begin with,
    /// and that leaves at least one word of its own; 0 when none.
    static func seriesPrefixes(core: [[Int32]], keys: [String], words: [[Unicode.Scalar]], evidence: [Double]) -> [Int] {
        guard seriesWorks > 0 else { return core.map { _ in 0 } }
        var works: [[Int32]: Set<String>] = [:]
        for (c, key) in zip(core, keys) where c.count >= 3 {
            for n in 2...min(5, c.count - 1) { works[Array(c.prefix(n)), default: []].insert(key) }
        }
        return core.map { c in
            guard c.count >= 3 else { return 0 }
            return (2...min(5, c.count - 1)).last { n in
                let prefix = Array(c.prefix(n))
                return (works[prefix]?.count ?? 0) > seriesWorks
                    && prefix.filter({ evidence[Int($0)] > 1 && words[Int($0)].count >= 3 }).count >= 2
            } ?? 0
        }
    }

    /// How much seeing a word on a spine says about which book it is, roughly in letters of
    /// evidence: its length up to 8, but 1 for an article or preposition, 0.5 for a lone letter.
    /// From the language, not the library: a small library must not make every word rare.
    static func evidence(_ word: String) -> Double {
        if MatchText.commonWords.contains(word) { return 1 }
        let n = word.unicodeScalars.count
        if n <= 1 { return 0.5 }
        return Double(min(n, 8))
    }

    /// Books whose titles share the most (rare) trigrams with the spine words, or whose authors'
    /// names are spelled out on it: at most `limit`, best first.
    /// `owned`: the reader's own books among the next best, up to `ownedLimit` of them: a word in
    /// many catalogue titles ("PARIS", "MALLORCA") must not keep the reader's copy ("Top 10
    /// Mallorca") from being looked at (`BookMatcher.preferOwnedHolder`).
    func shortlist(words: [[Unicode.Scalar]], limit: Int, ownedLimit: Int = 0) -> (best: [Int], owned: [Int]) {
        guard !books.isEmpty else { return ([], []) }
        var grams: [UInt64] = []
        for w in words { Self.trigrams(of: w, into: &grams) }
        grams.sort()
        var acc = [Float](repeating: 0, count: books.count)
        var touched: [Int32] = []
        // Trigrams in a twentieth of all titles (`the`, `ing`) cost time and say little.
        let common = Int32(max(64, distinctBooks / 20))
        var last: UInt64 = .max
        for g in grams where g != last {
            last = g
            guard let t = trigramIDs[g] else { continue }
            let lo = trigramStart[Int(t)], hi = trigramStart[Int(t) + 1]
            guard hi - lo <= common else { continue }
            let w = trigramWeight[Int(t)]
            for k in lo..<hi {
                let b = Int(trigramBooks[Int(k)])
                if acc[b] == 0 { touched.append(Int32(b)) }
                acc[b] += w
            }
        }
        // An author's name read cleanly brings in their books even when the title is garbled.
        var seenAuthorWords = Set<Int32>()
        for w in words.flatMap({ BookMatcher.joinedNames ? [$0] + authorHalves(of: $0) : [$0] }) where w.count >= 3 {
            guard let id = wordIDs[String(String.UnicodeScalarView(w))], seenAuthorWords.insert(id).inserted else { continue }
            let lo = authorStart[Int(id)], hi = authorStart[Int(id) + 1]
            guard hi > lo, hi - lo <= common else { continue }
            // Not divided by the title's weight below: the name counts the same for every book.
            let boost = 0.5 * authorWeight[Int(id)]
            for k in lo..<hi {
                let b = Int(authorBooks[Int(k)])
                if acc[b] == 0 { touched.append(Int32(b)) }
                acc[b] += boost * titleNorm[b]
            }
        }
        // The best `limit` by overlap over the square root of the title's own weight (a long title
        // needs more of its trigrams on the spine than a short one).
        let best = Self.best(touched, limit: limit) { acc[Int($0)] / titleNorm[Int($0)] }
        // Only where the catalogue dwarfs the reader's books (a quarter of the entries or fewer):
        // among many of them, the shortlist holds theirs already, and with 25,142 owned of
        // 100,000 (`shelfscan catalog bench`, just over a quarter) these places took a spine's
        // matching from 1.1 to 1.5 ms.
        guard ownedLimit > 0, ownedEntries.count * 4 <= books.count else { return (best, []) }
        // The reader's entries touched, found from their own list (shorter than the rows touched
        // in a large catalogue).
        let taken = Set(best)
        let owned = Self.best(ownedEntries.filter { acc[Int($0)] > 0 && !taken.contains(Int($0)) }, limit: ownedLimit) {
            acc[Int($0)] / titleNorm[Int($0)]
        }
        return (best, owned)
    }

    /// A word the OCR ran together from two name words ("ERICNEWBY"), not itself a word of any
    /// author's name: its two halves that both are (each three letters or more); none otherwise.
    func authorHalves(of word: [Unicode.Scalar]) -> [[Unicode.Scalar]] {
        func isName(_ w: ArraySlice<Unicode.Scalar>) -> Bool {
            guard let id = wordIDs[String(String.UnicodeScalarView(w))] else { return false }
            return authorStart[Int(id) + 1] > authorStart[Int(id)]
        }
        guard word.count >= 6, !isName(word[...]) else { return [] }
        for cut in 3...(word.count - 3) where isName(word[..<cut]) && isName(word[cut...]) {
            return [Array(word[..<cut]), Array(word[cut...])]
        }
        return []
    }

    /// The `limit` books of `touched` scoring most, best first, kept in a small min-heap.
    static func best(_ touched: [Int32], limit: Int, score: (Int32) -> Float) -> [Int] {
        var heap: [(score: Float, book: Int32)] = []
        heap.reserveCapacity(limit + 1)
        for b in touched {
            let s = score(b)
            if heap.count < limit {
                heap.append((s, b))
                var i = heap.count - 1
                while i > 0 { let p = (i - 1) / 2; if heap[p].score <= heap[i].score { break }; heap.swapAt(p, i); i = p }
            } else if s > heap[0].score {
                heap[0] = (s, b)
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count, heap[l].score < heap[m].score { m = l }
                    if r < heap.count, heap[r].score < heap[m].score { m = r }
                    if m == i { break }
                    heap.swapAt(i, m); i = m
                }
            }
        }
        return heap.sorted { $0.score > $1.score }.map { Int($0.book) }
    }
}

/// `WordSimilarity.credit` of an index's vocabulary words (by id) against spine units (each
/// distinct unit given an id once), remembered across a photo's regions and passes and across
/// photos: a shelf photo's matching asked for 2.9 million credits of which 228,000 were
/// distinct (`chris1`; `suzanne4` 9.2 million, 673,000), each an edit distance. The credit is a
/// function of the two words alone, so a remembered one is the one computed again. Unit ids are
/// never reused; past `most` credits (a million) the memo starts afresh. `SHELFSCAN_CREDIT_MEMO=off`: each
/// region computes its own. The credits are held in a `CreditTable` rather than a dictionary:
/// the matching threads look up a row of credits at a time under one lock, and with the
/// dictionary's hashing the lock was held long enough that they queued on it (`gardening`, 12 MP:
/// 1.9% of the photo's CPU waiting on or waking for that lock, 1.3% in the dictionary's search).
final class CreditMemo: @unchecked Sendable {
    static let enabled = ProcessInfo.processInfo.environment["SHELFSCAN_CREDIT_MEMO"] != "off"
    /// Credits (and units) kept at most before starting afresh: a photo's worth (`suzanne4`
    /// asks for 673,000 distinct), 32 MB of table.
    let most: Int
    private let lock = NSLock()
    private var unitIDs: [[Unicode.Scalar]: Int32] = [:]
    private var nextUnit: Int32 = 0
    private var credits = CreditTable()
    /// Bumped when unit ids start again from 0 (a stream's billions of units): a spine holding
    /// ids of an earlier generation computes its credits without the memo.
    private var generation = 0

    init(most: Int = 1_000_000) {
        self.most = most
    }

    /// Credits remembered now.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return credits.count
    }

    func ids(of units: [[Unicode.Scalar]]) -> (generation: Int, ids: [Int32]) {
        lock.lock()
        defer { lock.unlock() }
        if unitIDs.count > most { unitIDs.removeAll(keepingCapacity: true) }
        if nextUnit > Int32.max - Int32(units.count) - 1 {
            generation += 1
            nextUnit = 0
            unitIDs.removeAll(keepingCapacity: true)
            credits.removeAll()
        }
        return (generation, units.map { u in
            if let known = unitIDs[u] { return known }
            let id = nextUnit
            nextUnit += 1
            unitIDs[u] = id
            return id
        })
    }

    /// Starts unit ids again from `first` (tests: the generation change without billions of units).
    func restartIDs(at first: Int32) {
        lock.lock()
        nextUnit = first
        lock.unlock()
    }

    /// The credits of vocabulary word `word` (`scalars`) against each unit (`ids` from `ids(of:)`).
    func row(word: Int32, scalars: [Unicode.Scalar], units: [[Unicode.Scalar]], ids: [Int32], generation: Int) -> [Double] {
        let high = UInt64(UInt32(bitPattern: word)) << 32
        var row = [Double](repeating: -1, count: units.count)
        lock.lock()
        guard generation == self.generation else {
            lock.unlock()
            return units.map { WordSimilarity.credit(scalars, $0) }
        }
        for i in ids.indices {
            if let known = credits.value(high | UInt64(UInt32(bitPattern: ids[i]))) { row[i] = known }
        }
        lock.unlock()
        var fresh: [(UInt64, Double)] = []
        for i in row.indices where row[i] < 0 {
            row[i] = WordSimilarity.credit(scalars, units[i])
            fresh.append((high | UInt64(UInt32(bitPattern: ids[i])), row[i]))
        }
        if !fresh.isEmpty {
            lock.lock()
            if generation == self.generation {
                if credits.count > most { credits.removeAll() }
                for (key, value) in fresh { credits.set(key, value) }
            }
            lock.unlock()
        }
        return row
    }
}

/// Credits by key (`CreditMemo`'s vocabulary word id in the high half, unit id in the low half),
/// in one flat table: open addressing, linear probing, a Fibonacci hash of the key, at most half
/// full (it doubles past that). A key's slot is found with a multiply and a shift where a
/// `Dictionary<UInt64, Double>` hashes it with SipHash. Keys never have the top bit set (both
/// halves are non-negative `Int32`s), so `UInt64.max` marks an empty slot.
struct CreditTable {
    private(set) var count = 0
    private var keys: [UInt64]
    private var values: [Double]
    /// 64 minus log2 of the capacity: the hash's top bits pick the slot.
    private var shift: Int

    static let empty = UInt64.max

    init(capacity: Int = 1 << 12) {
        let bits = Int.bitWidth - (max(16, capacity) - 1).leadingZeroBitCount
        keys = [UInt64](repeating: Self.empty, count: 1 << bits)
        values = [Double](repeating: 0, count: 1 << bits)
        shift = 64 - bits
    }

    var capacity: Int { keys.count }

    @inline(__always)
    private static func slot(_ key: UInt64, shift: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The value kept for `key`, nil when none is.
    @inline(__always)
    func value(_ key: UInt64) -> Double? {
        precondition(key != Self.empty, "CreditTable: the empty key")
        return keys.withUnsafeBufferPointer { k in
            let mask = k.count - 1
            var i = Self.slot(key, shift: shift)
            while true {
                let found = k[i]
                if found == key { return values[i] }
                if found == Self.empty { return nil }
                i = (i + 1) & mask
            }
        }
    }

    /// Keeps `value` for `key` (replacing what was kept for it).
    mutating func set(_ key: UInt64, _ value: Double) {
        precondition(key != Self.empty, "CreditTable: the empty key")
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var i = Self.slot(key, shift: shift)
        while keys[i] != Self.empty && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == Self.empty { count += 1 }
        keys[i] = key
        values[i] = value
    }

    /// Every key let go; the capacity kept.
    mutating func removeAll() {
        guard count > 0 else { return }
        keys.withUnsafeMutableBufferPointer { $0.update(repeating: Self.empty) }
        count = 0
    }

    private mutating func grow() {
        let (oldKeys, oldValues) = (keys, values)
        self = CreditTable(capacity: oldKeys.count * 2)
        for i in oldKeys.indices where oldKeys[i] != Self.empty { set(oldKeys[i], oldValues[i]) }
    }
}

extension BookIndex {
    /// The index's entries: every book, then a second entry for each book a subtitle can stand
    /// for (`subtitleEntryBooks`), that book again; held as the books and those places, not as a
    /// copy of 25,000 books (the matcher is made before every scan).
    struct Entries: RandomAccessCollection, Sendable {
        let books: [Book]
        let again: [Int32]

        var startIndex: Int { 0 }
        var endIndex: Int { books.count + again.count }

        subscript(position: Int) -> Book {
            position < books.count ? books[position] : books[Int(again[position - books.count])]
        }
    }
}
