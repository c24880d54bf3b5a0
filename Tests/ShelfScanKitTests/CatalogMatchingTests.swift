import Foundation
import Testing
@testable import ShelfScanKit

/// Both reference catalogues of `../shared/corpora/catalog` plus the books labelled on the real
/// shelf photos, read in place, as one list of books.
enum SharedCatalog {
    static let folder = Fixtures.sharedCorpora + "/catalog"
    static let files = ["goodbooks-10k_isbn_normalized.csv", "library-dataset_library_books.csv"]

    /// The labelled books of `shelves/truth.jsonl`: title and first author.
    static func truthBooks() throws -> [Book] {
        let text = try String(contentsOfFile: Fixtures.sharedCorpora + "/shelves/truth.jsonl", encoding: .utf8)
        var books: [Book] = []
        var seen = Set<String>()
        for line in text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            for entry in object?["books"] as? [[String: Any]] ?? [] {
                guard let title = entry["title"] as? String else { continue }
                let authors = entry["authors"] as? [String] ?? []
                guard seen.insert(title + "|" + authors.joined()).inserted else { continue }
                books.append(Book(title: title, authors: authors, owned: true))
            }
        }
        return books
    }

    /// The catalogue rows, parsed as `shelfscan catalog import` parses them.
    static func catalogBooks() throws -> [Book] {
        var books: [Book] = []
        for file in files {
            let rows = CSVReader.rows(try String(contentsOfFile: folder + "/" + file, encoding: .utf8))
            let columns = LibraryExchange.Columns(rows[0])
            for row in rows.dropFirst() {
                if case .success(let (book, _)) = columns.book(from: row, source: "catalog") {
                    var b = book
                    b.owned = false
                    books.append(b)
                }
            }
        }
        return books
    }

    /// Truth books first, then the catalogues, with ids.
    static let all: [Book] = {
        var list = ((try? truthBooks()) ?? []) + ((try? catalogBooks()) ?? [])
        for i in list.indices { list[i].id = Int64(i + 1) }
        return list
    }()
}

/// Deterministic pseudo-random numbers, so corruptions are the same on every run.
typealias SeededRandom = SplitMix64

/// How OCR damages a spine, one kind at a time.
enum Corruption: String, CaseIterable, CustomTestStringConvertible {
    case upperCaseAuthorFirst, letterDropped, lookAlikes, publisherAdded, wordsMerged, wordSplit
    var testDescription: String { rawValue }

    /// The spine lines of `title` by `author` damaged this way; nil when it does not apply.
    func lines(title: String, author: String, random: inout SeededRandom) -> [String]? {
        var words = title.split(separator: " ").map(String.init)
        let longest = words.indices.max { words[$0].count < words[$1].count } ?? 0
        switch self {
        case .upperCaseAuthorFirst:
            return [author.uppercased(), title.uppercased()]
        case .letterDropped:
            let w = words[longest]
            guard w.count >= 5 else { return nil }
            var chars = Array(w)
            chars.remove(at: Int.random(in: 1..<(chars.count - 1), using: &random))
            words[longest] = String(chars)
        case .lookAlikes:
            let swaps: [Character: String] = ["o": "0", "l": "1", "e": "c", "i": "l", "m": "rn", "s": "5",
                                              "O": "0", "I": "1", "E": "C", "S": "5"]
            var changed = 0
            words = words.map { w in
                guard changed < 2, w.count >= 4, let i = w.firstIndex(where: { swaps[$0] != nil }) else { return w }
                changed += 1
                var s = w
                s.replaceSubrange(i...i, with: swaps[w[i]]!)
                return s
            }
            guard changed > 0 else { return nil }
        case .publisherAdded:
            return [title, author, "PENGUIN BOOKS"]
        case .wordsMerged:
            guard words.count >= 2 else { return nil }
            let i = Int.random(in: 0..<(words.count - 1), using: &random)
            words[i] += words.remove(at: i + 1)
        case .wordSplit:
            let w = words[longest]
            guard w.count >= 7 else { return nil }
            let cut = w.index(w.startIndex, offsetBy: w.count / 2)
            words[longest] = String(w[..<cut]) + " " + String(w[cut...])
        }
        return [words.joined(separator: " "), author]
    }
}

@Suite("Book matcher against the shared catalogues",
       .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"),
       .serialized)
struct CatalogMatchingTests {
    static let matcher = BookMatcher(books: SharedCatalog.all)

    /// Labelled shelf books with an author, whose title (core) is specific enough for a spine to
    /// name: not titles that the catalogue holds under several authors' names only by that title.
    static let targets: [Book] = {
        let truth = (try? SharedCatalog.truthBooks()) ?? []
        return truth.filter { !$0.authors.isEmpty && MatchText.title($0.title).core.joined().count >= 4 }
    }()

    /// The same book: the same first author, and one title's core begins the other's words
    /// (catalogues cut titles differently: "Hitler : 1936-1945" is "Hitler 1936-1945: Nemesis").
    static func same(_ a: Book, _ b: Book) -> Bool {
        func author(_ x: Book) -> String { x.authors.first.map { MatchText.authorWords($0).sorted().joined(separator: " ") } ?? "" }
        guard author(a) == author(b) else { return false }
        let ca = MatchText.title(a.title).core, cb = MatchText.title(b.title).core
        let fa = MatchText.words(a.title), fb = MatchText.words(b.title)
        return ca == cb || fb.starts(with: ca) || fa.starts(with: cb) || fb.dropFirst().starts(with: ca) || fa.dropFirst().starts(with: cb)
    }

    @Test("both catalogues parse: title, authors and ISBN columns found in each")
    func catalogues() async throws {
        let books = try await offPool { try SharedCatalog.catalogBooks() }
        #expect(books.count > 25_000)
        let withISBN = books.filter { $0.isbn13 != nil }.count
        // PROVENANCE: 9,277 + about 14,800 valid ISBNs.
        #expect(withISBN > 23_000)
        let hunger = try #require(books.first { $0.title.hasPrefix("The Hunger Games (") })
        #expect(hunger.isbn13 == "9780439023481")
        let hp = try #require(books.first { $0.title.hasPrefix("Harry Potter and the Sorcerer's Stone") })
        #expect(hp.authors == ["J.K. Rowling", "Mary GrandPré"])
        let bunge = try #require(books.first { $0.title.hasPrefix("Las Pseudociencias") })
        #expect(bunge.authors == ["Mario Bunge"])
    }

    @Test("the labelled book ranks first under each kind of OCR damage", arguments: Corruption.allCases)
    func corrupted(_ corruption: Corruption) async throws {
        let (tried, wrong) = try await offPool { () -> (Int, [String]) in
            var random = SeededRandom(state: 42)
            var tried = 0
            var wrong: [String] = []
            for book in Self.targets {
                guard let lines = corruption.lines(title: book.title, author: book.authors[0], random: &random) else { continue }
                tried += 1
                let top = Self.matcher.matches(for: RegionText(lines: lines.map { TextLine(text: $0) })).first
                if !(top.map { Self.same($0.book, book) } ?? false) {
                    wrong.append("\(lines) -> \(top.map { "\($0.book.title) / \($0.book.authors.first ?? "") \($0.score)" } ?? "nothing")")
                }
            }
            return (tried, wrong)
        }
        #expect(tried >= 100)
        // Every damaged spine still names its own book first.
        #expect(wrong.isEmpty, Comment(rawValue: "\(wrong.count) of \(tried):\n" + wrong.prefix(25).joined(separator: "\n")))
    }

    @Test("a clean title and author line are reported (score at least 0.6)")
    func cleanScores() async throws {
        let low = try await offPool { () -> [String] in
            var low: [String] = []
            for book in Self.targets {
                let m = Self.matcher.matches(for: spine(book.title, book.authors[0])).first
                if (m?.score ?? 0) < 0.6 { low.append("\(book.title) / \(book.authors[0]): \(m?.score ?? 0)") }
            }
            return low
        }
        #expect(low.isEmpty, Comment(rawValue: "\(low.count):\n" + low.prefix(25).joined(separator: "\n")))
    }

    @Test("OCR junk and lone common words match nothing at 0.6 against 25k books", arguments: [
        "THE", "AND", "EMMA", "IT", "LOVE", "WX ii NNN", "PENGUIN BOOKS", "ISBN 978", "1 2 3 4", "VOLUME 1", "A NOVEL",
        "ll il 1l", "mmm nnn", "EDICIONS 62", "DE LA",
    ])
    func junk(_ text: String) async throws {
        let m = try await offPool { Self.matcher.matches(for: spine(text)).first }
        #expect((m?.score ?? 0) < 0.6, "\(text) -> \(m.map { "\($0.book.title) \($0.score)" } ?? "")")
    }
}
