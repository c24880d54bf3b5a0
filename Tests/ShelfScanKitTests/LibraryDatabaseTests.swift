import Foundation
import GRDB
import Testing
@testable import ShelfScanKit

/// Books used across the library tests, with whole-second dates so that a row read back
/// compares equal to the value written.
enum SampleBooks {
    static func date(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(day) * 86_400) }

    static let odyssey = Book(isbn: ISBN("9780143039952"), title: "The Odyssey", authors: ["Homer"], publisher: "Penguin",
                              year: 2006, dateAdded: date(1), readingStatus: .read, rating: 5, notes: "Fagles, with an intro")
    static let nineteen84 = Book(isbn: ISBN("9780451524935"), title: "1984", authors: ["George Orwell"], dateAdded: date(2),
                                 readingStatus: .currentlyReading)
    static let animalFarm = Book(isbn: ISBN("9780451526342"), title: "Animal Farm", authors: ["George Orwell"],
                                 dateAdded: date(3), readingStatus: .wantToRead)
    static let lordOfTheFlies = Book(isbn: ISBN("9780140283334"), title: "Lord of the Flies", authors: ["William Golding"],
                                     dateAdded: date(4), readingStatus: .read)
    static let oiseau = Book(isbn: ISBN("9791023505214"), title: "L'Oiseau", authors: ["Paule Battault"], dateAdded: date(5))
    /// A reference-catalogue row: used for matching, not on the user's shelves.
    static let catalogueGatsby = Book(isbn: ISBN("9780743273565"), title: "The Great Gatsby", authors: ["F. Scott Fitzgerald"],
                                      source: "catalog", dateAdded: date(6), readingStatus: nil, owned: false)

    static let owned = [odyssey, nineteen84, animalFarm, lordOfTheFlies, oiseau]

    /// An in-memory library holding `books`.
    static func library(_ books: [Book] = owned + [catalogueGatsby]) throws -> LibraryDatabase {
        let db = try LibraryDatabase.inMemory()
        for book in books { try db.add(book) }
        return db
    }
}

@Suite("Library database: files and migrations")
struct LibraryFileTests {
    static let migrations = ["v1-books", "v1-books-fts", "v2-lookup-cache", "v3-import"]

    @Test("an in-memory library is fully migrated")
    func inMemoryMigrated() throws {
        let db = try LibraryDatabase.inMemory()
        #expect(try db.appliedMigrations() == Self.migrations)
        #expect(db.path == nil)
        #expect(try db.count() == 0)
    }

    @Test("open creates the file and its folders, migrated, in WAL mode")
    func openFresh() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("nested/folders/library.sqlite")
        let db = try LibraryDatabase.open(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(db.path == path)
        #expect(try db.appliedMigrations() == Self.migrations)
        try db.add(SampleBooks.odyssey)
        try withExtendedLifetime(db) {
            // While the library is open, a write lives in the write-ahead log.
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            // WAL is a property of the file: a separate connection sees it.
            let mode = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
            #expect(mode?.lowercased() == "wal")
        }
    }

    @Test("re-opening keeps the books and does not migrate again")
    func reopen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("library.sqlite")
        var ids: [Int64] = []
        do {
            let db = try LibraryDatabase.open(path: path)
            ids = try [SampleBooks.odyssey, SampleBooks.nineteen84].map { try #require(db.add($0).id) }
        }
        let again = try LibraryDatabase.open(path: path)
        #expect(try again.count() == 2)
        #expect(try again.book(id: ids[0])?.title == "The Odyssey")
        #expect(try again.book(id: ids[1])?.title == "1984")
        #expect(try again.appliedMigrations() == Self.migrations)
        // Each migration is recorded once: re-opening ran none of them again.
        let recorded = try DatabaseQueue(path: path).read {
            try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        }
        #expect(recorded == Self.migrations.sorted())
        // The search index was not rebuilt empty either.
        #expect(try again.search("Odys").map(\.title) == ["The Odyssey"])
    }

    @Test("a file that is not SQLite is refused, named, and left alone")
    func notSQLite() throws {
        let dir = try TemporaryDirectory()
        var random = SeededBytes(seed: 42)
        let garbage = random.bytes(8192)
        let path = try dir.write("library.sqlite", garbage)
        #expect {
            try LibraryDatabase.open(path: path)
        } throws: { error in
            guard let error = error as? ShelfScanError else { return false }
            return error.code == .database && error.message.contains(path)
        }
        #expect(try Fixtures.bytes(path) == garbage)
    }

    @Test("a library written by a newer shelfscan is refused")
    func newerSchema() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("library.sqlite")
        _ = try LibraryDatabase.open(path: path)
        try DatabaseQueue(path: path).write {
            try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
        }
        #expect {
            try LibraryDatabase.open(path: path)
        } throws: { error in
            guard let error = error as? ShelfScanError else { return false }
            return error.code == .database && error.message.contains(path) && error.message.contains("newer")
        }
    }

    @Test("defaultPath: $XDG_DATA_HOME when absolute, else $HOME/.local/share")
    func defaultPath() {
        #expect(LibraryDatabase.defaultPath(environment: ["XDG_DATA_HOME": "/data/xdg", "HOME": "/home/reader"])
            == "/data/xdg/shelfscan/library.sqlite")
        #expect(LibraryDatabase.defaultPath(environment: ["HOME": "/home/reader"])
            == "/home/reader/.local/share/shelfscan/library.sqlite")
        // The XDG spec says relative and empty values are to be ignored.
        #expect(LibraryDatabase.defaultPath(environment: ["XDG_DATA_HOME": "relative/data", "HOME": "/home/reader"])
            == "/home/reader/.local/share/shelfscan/library.sqlite")
        #expect(LibraryDatabase.defaultPath(environment: ["XDG_DATA_HOME": "", "HOME": "/home/reader"])
            == "/home/reader/.local/share/shelfscan/library.sqlite")
    }
}

@Suite("Library database: books")
struct LibraryBookTests {
    @Test("add, show, list and remove round trip")
    func roundTrip() throws {
        let db = try LibraryDatabase.inMemory()
        let added = try db.add(SampleBooks.odyssey)
        let id = try #require(added.id)
        var expected = SampleBooks.odyssey
        expected.id = id
        #expect(added == expected)
        #expect(try db.book(id: id) == expected)
        #expect(added.isbn10 == "0143039954")
        #expect(try db.list() == [expected])
        #expect(try db.books(isbn13: ["9780143039952", "9780451524935"]) == ["9780143039952": expected])

        let removed = try db.remove(id: id)
        #expect(removed == expected)
        #expect(try db.book(id: id) == nil)
        #expect(try db.list().isEmpty)
        #expect(try db.search("Odyssey").isEmpty)
        #expect {
            try db.remove(id: id)
        } throws: { ($0 as? ShelfScanError)?.code == .notFound }
    }

    @Test("the same ISBN twice is refused and leaves one row", arguments: ["9780143039952", "0-14-303995-4"])
    func duplicateISBN(_ again: String) throws {
        let db = try LibraryDatabase.inMemory()
        let first = try db.add(SampleBooks.odyssey)
        #expect {
            try db.add(Book(isbn: ISBN(again), title: "Odyssey (another copy)"))
        } throws: { error in
            guard let error = error as? ShelfScanError else { return false }
            return error.code == .invalidArgument && error.message.contains("9780143039952")
        }
        #expect(try db.count(ownedOnly: false) == 1)
        #expect(try db.list().map(\.id) == [first.id])
    }

    @Test("books without an ISBN are never merged")
    func withoutISBN() throws {
        let db = try LibraryDatabase.inMemory()
        try db.add(Book(title: "Untitled notebook"))
        try db.add(Book(title: "Untitled notebook"))
        #expect(try db.count() == 2)
    }

    @Test("list: newest first, filtered by reading status, limited")
    func list() throws {
        let db = try SampleBooks.library()
        #expect(try db.list().map(\.title) == ["L'Oiseau", "Lord of the Flies", "Animal Farm", "1984", "The Odyssey"])
        #expect(try db.list(status: .read).map(\.title) == ["Lord of the Flies", "The Odyssey"])
        #expect(try db.list(status: .currentlyReading).map(\.title) == ["1984"])
        #expect(try db.list(status: .wantToRead).map(\.title) == ["L'Oiseau", "Animal Farm"])
        #expect(try db.list(limit: 2).map(\.title) == ["L'Oiseau", "Lord of the Flies"])
    }

    @Test("catalogue rows are left out of list, count and search unless asked for")
    func catalogueRows() throws {
        let db = try SampleBooks.library()
        #expect(!(try db.list().contains { $0.title == "The Great Gatsby" }))
        #expect(try db.count() == SampleBooks.owned.count)
        #expect(try db.count(ownedOnly: false) == SampleBooks.owned.count + 1)
        #expect(try db.search("Gatsby").isEmpty)
        #expect(try db.search("9780743273565").isEmpty)
        #expect(try db.search("Gatsby", includeCatalog: true).map(\.title) == ["The Great Gatsby"])
        #expect(try db.search("9780743273565", includeCatalog: true).map(\.title) == ["The Great Gatsby"])
    }

    @Test("matchableBooks decodes every row as the Codable path does, escapes, blanks and all")
    func matchableBooksDecoding() throws {
        var odd = Book(title: "Tricky \"Names\"", subtitle: "A \\ subtitle", authors: ["Flann \"Myles\" O'Brien", "A\\B", "AC/DC",
                       "Gabriel García Márquez", "Doe, Jane", "Zoë 📚", "\",\""], publisher: "Pub", year: 1999, pageCount: 321,
                       language: "es", categories: ["Fiction", "Tab\there"], description: "line\nbreak", coverURL: "https://x/y.jpg",
                       source: "test", dateAdded: Date(timeIntervalSince1970: 1_700_000_000.123), readingStatus: nil, rating: 4,
                       notes: "n", copies: 3)
        odd.isbn13 = nil
        let plain = Book(title: "Nobody", authors: [], dateAdded: SampleBooks.date(9), readingStatus: .currentlyReading)
        let spaced = Book(title: "Two", authors: ["Ann Lee", "Bo Wu"], categories: [], dateAdded: SampleBooks.date(10), owned: false)
        let db = try SampleBooks.library(SampleBooks.owned + [SampleBooks.catalogueGatsby, odd, plain, spaced])
        let books = try db.matchableBooks()
        #expect(books.count == SampleBooks.owned.count + 4)
        let ids = books.compactMap(\.id)
        #expect(ids.count == books.count && ids == ids.sorted())
        for book in books {
            // `book(id:)` decodes through GRDB's Codable support.
            #expect(try db.book(id: #require(book.id)) == book)
        }
        #expect(books.contains { $0.authors.last == "\",\"" && $0.categories == ["Fiction", "Tab\there"] && $0.copies == 3 })
        #expect(books.contains { $0.authors.isEmpty && $0.readingStatus == .currentlyReading })
        // Arrays written spaced, or with escapes, go through JSONDecoder.
        #expect(try Book.strings("[\"A\", \"B\"]") == ["A", "B"])
        #expect(try Book.strings("[\"A\\/B\",\"C\"]") == ["A/B", "C"])
        #expect(try Book.strings("[]") == [])
        #expect(try Book.strings(nil) == [])
        #expect(throws: (any Error).self) { try Book.strings("[\"A\",") }
        // The byte-level split agrees with JSONDecoder on the arrays it takes, and leaves it the rest.
        for text in ["[]", "[\"\"]", "[\"A\"]", "[\"Ann Lee\",\"Bo Wu\"]", "[\",\"]", "[\"Zoë 📚\",\"\",\"x\"]", "[\"a,b\",\"c\"]"] {
            let parsed = try #require(Book.plainStrings(Array(text.utf8)), "\(text)")
            #expect(parsed == (try JSONDecoder().decode([String].self, from: Data(text.utf8))), "\(text)")
        }
        for text in ["[\"A\", \"B\"]", "[\"A\\/B\"]", "[\"A\",", "[\"A\"B\"]", "[1]", "\"A\"", ""] {
            #expect(Book.plainStrings(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test("matchableBooks reads a value of the wrong type, written by another tool, as missing")
    func matchableBooksWrongTypes() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("library.sqlite")
        try LibraryDatabase.open(path: path).add(SampleBooks.odyssey)
        // SQLite keeps text that is not a number as text, even in an INTEGER column, and a blob as
        // a blob (GRDB's fatal error for `row[i] as Int?`).
        try DatabaseQueue(path: path).write {
            try $0.execute(sql: "UPDATE books SET year = 'nineteen', pageCount = X'00'")
        }
        let books = try LibraryDatabase.open(path: path).matchableBooks()
        #expect(books.count == 1)
        #expect(books.first?.title == "The Odyssey" && books.first?.authors == ["Homer"])
        #expect(books.first?.year == nil && books.first?.pageCount == nil && books.first?.publisher == "Penguin")
    }

    @Test("matchableBooks, read straight off SQLite, gives what GRDB's rows give for values of every type")
    func matchableBooksEveryType() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("library.sqlite")
        let library = try LibraryDatabase.open(path: path)
        for i in 1...12 { try library.add(Book(title: "Book \(i)", authors: ["Author \(i)"], dateAdded: SampleBooks.date(i))) }
        // Each row gets other types in its columns: integers, reals, text, blobs and nulls where
        // text, numbers, flags and dates belong, as another tool could write them (dates as
        // numbers, in other formats, or text that is no date: that row fails).
        let updates = [
            "year = 1999.0, pageCount = 2.5e30, owned = 0.0, copies = '3', rating = 3.0, readingStatus = 'read'",
            "title = X'4F647973736579', subtitle = 12, publisher = 3.5, authors = X'5B2241225D', categories = X'5B5D', isbn13 = NULL",
            "dateAdded = 2460000.5, owned = 'yes', copies = X'02', language = X'', notes = -0.0",
            "dateAdded = 1700000000, owned = 2, year = -9223372036854775808, pageCount = 9.3e18, rating = 4.9",
            "dateAdded = '2024-02-29T12:34:56.789Z', owned = '', copies = 0, authors = '[\"A\", \"B\"]', categories = '[]'",
            "dateAdded = '2024-02-29', description = X'00ff41', coverURL = 'x' || char(0) || 'y', source = X'41'",
            "dateAdded = '2026-12-06 23:29:48.477', title = 'Zoë 📚', authors = '[\"Zoë\",\"\"]', year = '2001'",
            "dateAdded = '2026-12-06 23:29:48.477', year = 2001, owned = -1, copies = 2.0",
            "dateAdded = '2026-12-06 23:29:48.478', isbn10 = 123, readingStatus = NULL",
            "title = '', authors = '[]', categories = '[\"\"]', subtitle = NULL, rating = 5",
            "authors = '[\"A\",\"B\"]', categories = '[\"x\\\\/y\"]'",
            "dateAdded = 'not a date'",
        ]
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            for (i, update) in updates.enumerated() { try db.execute(sql: "UPDATE books SET \(update) WHERE id = \(i + 1)") }
        }
        // The reference: GRDB's rows, each column through `DatabaseValue` (`RowColumns`), row by row.
        let sql = "SELECT \(Book.matchColumns.joined(separator: ", ")) FROM books ORDER BY id"
        let rows = try queue.read { db in try Row.fetchAll(db, sql: sql) }
        let reference: [Book?] = rows.map { row in
            var columns = RowColumns(row: row)
            return try? Book(matchColumns: &columns)
        }
        // A row the reference cannot read (its date is no date) fails the whole read, as there.
        #expect(reference.contains(nil))
        #expect(throws: ShelfScanError.self) { try LibraryDatabase.open(path: path).matchableBooks() }
        for (i, book) in reference.enumerated() where book == nil {
            try queue.write { db in try db.execute(sql: "DELETE FROM books WHERE id = \(i + 1)") }
        }
        let expected = reference.compactMap { $0 }
        let books = try LibraryDatabase.open(path: path).matchableBooks()
        #expect(books.count == expected.count && books.count >= 9)
        for (book, wanted) in zip(books, expected) { #expect(book == wanted) }
        // SQLite's column affinities turn some values first (1999.0 and '3' into integers, 12 into text).
        #expect(books.contains { $0.year == 1999 && $0.owned == false && $0.copies == 3 && $0.readingStatus == .read })
        #expect(books.contains { $0.title == "Odyssey" && $0.subtitle == "12" && $0.authors == ["A"] && $0.categories.isEmpty })
    }
}

@Suite("Library database: search")
struct LibrarySearchTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let query: String
        let titles: Set<String>
        var testDescription: String { "\"\(query)\"" }
    }

    static let cases: [Case] = [
        Case(query: "Odys", titles: ["The Odyssey"]),  // inside a word (trigram)
        Case(query: "odyssey", titles: ["The Odyssey"]),  // any case
        Case(query: "dysse", titles: ["The Odyssey"]),
        Case(query: "Homer", titles: ["The Odyssey"]),  // author
        Case(query: "orwell", titles: ["1984", "Animal Farm"]),
        Case(query: "Orwell farm", titles: ["Animal Farm"]),  // every word must match
        Case(query: "Golding Odyssey", titles: []),
        Case(query: "9780143039952", titles: ["The Odyssey"]),  // ISBN-13
        Case(query: "978-0-14-303995-2", titles: ["The Odyssey"]),
        Case(query: "0143039954", titles: ["The Odyssey"]),  // ISBN-10
        Case(query: "9791023505214", titles: ["L'Oiseau"]),
        Case(query: "of", titles: ["Lord of the Flies"]),  // short words: LIKE
        Case(query: "Lord of", titles: ["Lord of the Flies"]),
        Case(query: "19", titles: ["1984"]),
        Case(query: "L'Ois", titles: ["L'Oiseau"]),  // punctuation inside a word
        Case(query: "Odys\"sey", titles: []),  // a quote cannot break the query
        Case(query: "NOT AND OR", titles: []),  // FTS5 operators are plain words
        Case(query: "zzzz", titles: []),
        Case(query: "   ", titles: []),
        Case(query: "", titles: []),
    ]

    @Test("finds by words, parts of words, author and ISBN", arguments: cases)
    func search(_ c: Case) throws {
        let db = try SampleBooks.library()
        #expect(Set(try db.search(c.query).map(\.title)) == c.titles)
    }

    @Test("limit caps the results")
    func limit() throws {
        let db = try SampleBooks.library()
        #expect(try db.search("Orwell", limit: 1).count == 1)
    }
}
