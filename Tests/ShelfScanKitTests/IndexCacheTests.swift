import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Matcher index cache")
struct IndexCacheTests {
    /// Books that give every part of the index something to hold: owned and catalogue rows of one
    /// work, a subtitle that stands for its book, a title that is an author's name, co-authors.
    static let books: [Book] = {
        var books = [
            book("The Shining", ["Stephen King"], id: 1),
            book("The Shining", ["King, Stephen"], id: 2, owned: false),
            book("The Google Story: Inside the Hottest Business, Media and Technology Success of Our Time", ["David A. Vise", "Mark Malseed"], id: 3),
            book("Agatha Christie", ["Laura Thompson"], id: 4, owned: false),
            book("The Murder at the Vicarage", ["Agatha Christie"], id: 5),
            book("Murder on the Orient Express (Hercule Poirot, #10)", ["Agatha Christie"], id: 6, owned: false),
            book("La sombra del viento", ["Carlos Ruiz Zafón"], id: 7),
            book("Dune", ["Frank Herbert"], id: 8, owned: false),
        ]
        books[6].subtitle = "Novela"
        return books
    }()

    @Test("an index read back from its bytes is the index that was built, and matches the same")
    func roundTrip() throws {
        let built = BookIndex(books: Self.books)
        // The subtitle entry exists, so the round trip covers it.
        #expect(built.books.count > built.distinctBooks)
        let data = IndexCache.encode(built, stamp: 42)
        let read = try #require(IndexCache.decode(data, stamp: 42, books: Self.books))
        // Every stored field: the bytes written again are the same bytes.
        #expect(IndexCache.encode(read, stamp: 42) == data)
        // And what is derived on reading.
        #expect(read.books.map(\.id) == built.books.map(\.id))
        #expect(read.wordIDs == built.wordIDs)
        #expect(read.ownedEntries == built.ownedEntries)
        #expect(read.ownedWorks == built.ownedWorks)
        #expect(read.namesWithWord.mapValues(Set.init) == built.namesWithWord.mapValues(Set.init))
        let fresh = BookMatcher(index: built), cached = BookMatcher(index: read)
        for s in [spine("THE SHINING", "STEPHEN KING"), spine("Inside the Hottest Business, Media and Technology Success of Our Time"),
                  spine("AGATHA CHRISTIE", "MURDER AT THE VICARAGE"), spine("LA SOMBRA DEL VIENTO"), spine("DUNE")] {
            let a = fresh.matches(for: s), b = cached.matches(for: s)
            #expect(!a.isEmpty)
            #expect(a.map(\.book.id) == b.map(\.book.id))
            #expect(a.map(\.score) == b.map(\.score))
        }
    }

    @Test("the stamp changes with any matched field of any book, and only with those")
    func stamp() {
        let base = IndexCache.stamp(of: Self.books)
        #expect(IndexCache.stamp(of: Self.books) == base)
        var notes = Self.books
        notes[0].notes = "signed"
        notes[0].isbn13 = "9780385121675"
        #expect(IndexCache.stamp(of: notes) == base)
        func changed(_ change: (inout [Book]) -> Void) -> Bool {
            var books = Self.books
            change(&books)
            return IndexCache.stamp(of: books) != base
        }
        #expect(changed { $0[3].title = "Agatha Christie: A Life" })
        #expect(changed { $0[6].subtitle = nil })
        #expect(changed { $0[2].authors = ["David A. Vise"] })
        #expect(changed { $0[7].owned = true })
        #expect(changed { $0[1].id = 9 })
        #expect(changed { $0.removeLast() })
        #expect(changed { $0.append(book("Emma", ["Jane Austen"], id: 10)) })
        // Where one string ends counts: a title's last letter moved into the subtitle.
        #expect(changed { $0[6].title = "La sombra del vient"; $0[6].subtitle = "oNovela" })
    }

    @Test("bytes for other books, another stamp, cut short or with one byte changed are refused")
    func refused() {
        let data = IndexCache.encode(BookIndex(books: Self.books), stamp: 42)
        #expect(IndexCache.decode(data, stamp: 43, books: Self.books) == nil)
        #expect(IndexCache.decode(data, stamp: 42, books: Array(Self.books.dropLast())) == nil)
        for length in stride(from: 0, to: data.count, by: max(1, data.count / 97)) {
            #expect(IndexCache.decode(data.prefix(length), stamp: 42, books: Self.books) == nil)
        }
        #expect(IndexCache.decode(data + Data([0]), stamp: 42, books: Self.books) == nil)
        for position in stride(from: 0, to: data.count, by: max(1, data.count / 89)) {
            var damaged = data
            damaged[position] ^= 0x10
            #expect(IndexCache.decode(damaged, stamp: 42, books: Self.books) == nil)
        }
    }

    @Test("a library's matcher writes its index, reads it back, and never uses it once the books change")
    func library() throws {
        let dir = try TemporaryDirectory()
        let db = try LibraryDatabase.open(path: dir.file("library.sqlite"))
        for b in Self.books { var b = b; b.id = nil; _ = try db.add(b) }
        let cache = IndexCache(directory: dir.file("cache"))
        let file = cache.file(for: dir.file("library.sqlite"))
        let first = try BookMatcher(library: db, cache: cache)
        let written = try #require(FileManager.default.contents(atPath: file))
        let second = try BookMatcher(library: db, cache: cache)
        #expect(FileManager.default.contents(atPath: file) == written)
        #expect(second.count == first.count)
        #expect(second.matches(for: spine("DUNE")).first?.book.title == "Dune")

        // A book added: the old file no longer fits; the new matcher knows the book and rewrites it.
        _ = try db.add(Book(title: "Wuthering Heights", authors: ["Emily Brontë"]))
        let third = try BookMatcher(library: db, cache: cache)
        #expect(third.count == first.count + 1)
        #expect(third.matches(for: spine("WUTHERING HEIGHTS", "EMILY BRONTE")).first?.book.title == "Wuthering Heights")
        #expect(FileManager.default.contents(atPath: file) != written)

        // Garbage in the cache file is ignored and replaced.
        try Data("not an index".utf8).write(to: URL(fileURLWithPath: file))
        let fourth = try BookMatcher(library: db, cache: cache)
        #expect(fourth.count == third.count)
        #expect((FileManager.default.contents(atPath: file)?.count ?? 0) > 100)
    }

    @Test("settings change the stamp, traces and the cache's own do not", arguments: [
        ("SHELFSCAN_SUBTITLE_WORDS", true), ("SHELFSCAN_MIN_SCORE", true), ("SHELFSCAN_TRACE_READS", false),
        ("SHELFSCAN_INDEX_CACHE", false), ("SHELFSCAN_CACHE_DIR", false), ("HOME", false),
    ])
    func settings(key: String, counts: Bool) {
        #expect(IndexCache.mayChangeIndex(key) == counts)
    }

    @Test("the cache folder follows SHELFSCAN_CACHE_DIR, XDG_CACHE_HOME and HOME; off turns it off")
    func folder() {
        #expect(IndexCache.standard(environment: ["HOME": "/h"])?.directory == "/h/.cache/shelfscan")
        #expect(IndexCache.standard(environment: ["HOME": "/h", "XDG_CACHE_HOME": "/x"])?.directory == "/x/shelfscan")
        #expect(IndexCache.standard(environment: ["HOME": "/h", "SHELFSCAN_CACHE_DIR": "/c"])?.directory == "/c")
        #expect(IndexCache.standard(environment: ["HOME": "/h", "SHELFSCAN_INDEX_CACHE": "off"]) == nil)
        #expect(IndexCache.standard(environment: [:]) == nil)
    }
}
