import Foundation
import Testing
@testable import ShelfScanKit

/// What a Goodreads export keeps of a book (it has no subtitle, description, categories,
/// language or cover; dates only to the day).
struct ExchangeKey: Hashable, CustomStringConvertible {
    let title: String
    let authors: [String]
    let isbn13: String?
    let rating: Int?
    let status: ReadingStatus?
    let notes: String?
    let copies: Int
    let publisher: String?
    let year: Int?
    let pages: Int?

    init(_ b: Book) {
        title = b.title
        authors = b.authors
        isbn13 = b.isbn13
        rating = b.rating
        status = b.readingStatus
        notes = b.notes
        copies = b.copies
        publisher = b.publisher
        year = b.year
        pages = b.pageCount
    }

    var description: String {
        "\(title.debugDescription) by \(authors) isbn=\(isbn13 ?? "-") rating=\(rating.map(String.init) ?? "-") "
            + "\(status?.rawValue ?? "nil") notes=\(notes?.debugDescription ?? "-") x\(copies) \(publisher ?? "-") \(year.map(String.init) ?? "-") \(pages.map(String.init) ?? "-")p"
    }
}

enum ExchangeBooks {
    static func day(_ d: Int, hour: Double = 13.5) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(d) * 86_400 + hour * 3600) }

    /// Two authors, commas and quotes in titles, no ISBN, a 979 ISBN (no ISBN-10), ratings and
    /// none, each reading status, notes with a newline, two copies; plus a subtitle, categories
    /// and a description that the format drops.
    static let all: [Book] = [
        Book(isbn: ISBN("9780060853983"), title: "Good Omens: The Nice and Accurate Prophecies of Agnes Nutter, Witch",
             authors: ["Terry Pratchett", "Neil Gaiman"], publisher: "William Morrow", year: 2006, pageCount: 432,
             dateAdded: day(1), readingStatus: .read, rating: 4, notes: "Signed copy.\nBought in Oxford, 2012"),
        Book(isbn: ISBN("9781592400874"), title: "Eats, Shoots & Leaves: The \"Zero Tolerance\" Approach to Punctuation",
             authors: ["Lynne Truss"], dateAdded: day(2), readingStatus: .currentlyReading, rating: 3),
        Book(title: "Family Recipes, Vol. 2", authors: ["Grandma Rose"], dateAdded: day(3), readingStatus: .wantToRead,
             notes: "the \"good\" one, with the stains"),
        Book(isbn: ISBN("9791023505214"), title: "L'Oiseau", authors: ["Paule Battault"], dateAdded: day(4), readingStatus: .read, rating: 5),
        Book(isbn: ISBN("9780451524935"), title: "1984", authors: ["George Orwell"], publisher: "Signet", year: 1961,
             dateAdded: day(5), readingStatus: .wantToRead, copies: 2),
        Book(isbn: ISBN("9780140268867"), title: "The Odyssey", subtitle: "Translated by Robert Fagles", authors: ["Homer", "Robert Fagles", "Bernard Knox"],
             categories: ["Epic poetry"], description: "The epic of Odysseus' return.", dateAdded: day(6), readingStatus: .read, rating: 1),
    ]

    static func library(_ books: [Book] = all) throws -> LibraryDatabase {
        let db = try LibraryDatabase.inMemory()
        for b in books { try db.add(b) }
        return db
    }

    static func keys(_ books: [Book]) -> Set<ExchangeKey> { Set(books.map(ExchangeKey.init)) }

    /// Export (oldest first, as `library export` does) and import into a new library.
    static func roundTrip(_ books: [Book]) throws -> (csv: String, result: LibraryExchange.ImportResult, library: LibraryDatabase) {
        let source = try library(books)
        let csv = LibraryExchange.goodreadsCSV(try source.list().reversed())
        let target = try LibraryDatabase.inMemory()
        let result = try LibraryExchange.importCSV(csv, into: target)
        return (csv, result, target)
    }

    static func utcDay(_ y: Int, _ m: Int, _ d: Int) -> Date {
        var c = DateComponents()
        (c.year, c.month, c.day) = (y, m, d)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: c)!
    }
}

@Suite("Exchange: Goodreads and CSV import and export")
struct ExchangeTests {
    @Test("Goodreads export then import: the same titles, authors, ISBNs, ratings, statuses, notes and copies")
    func goodreadsRoundTrip() throws {
        let (csv, result, target) = try ExchangeBooks.roundTrip(ExchangeBooks.all)
        #expect(result.imported == Array(2...7))
        #expect(result.duplicates.isEmpty && result.skipped.isEmpty && result.warnings.isEmpty, "\(result)")
        let back = try target.list()
        #expect(ExchangeBooks.keys(back) == ExchangeBooks.keys(ExchangeBooks.all),
                "lost: \(ExchangeBooks.keys(ExchangeBooks.all).subtracting(ExchangeBooks.keys(back))) added: \(ExchangeBooks.keys(back).subtracting(ExchangeBooks.keys(ExchangeBooks.all)))")

        // The file itself: Goodreads' columns, ISBNs wrapped, no ISBN-10 for a 979 ISBN, rating 0 for none.
        let rows = CSVReader.rows(csv)
        #expect(rows.first == LibraryExchange.goodreadsColumns)
        #expect(rows.count == ExchangeBooks.all.count + 1)
        let column = Dictionary(uniqueKeysWithValues: LibraryExchange.goodreadsColumns.enumerated().map { ($1, $0) })
        func row(_ title: String) -> [String]? { rows.first { $0[column["Title"]!] == title } }
        let oiseau = try #require(row("L'Oiseau"))
        #expect(oiseau[column["ISBN"]!] == "=\"\"" && oiseau[column["ISBN13"]!] == "=\"9791023505214\"")
        let nineteen84 = try #require(row("1984"))
        #expect(nineteen84[column["ISBN"]!] == "=\"0451524934\"")
        #expect(nineteen84[column["My Rating"]!] == "0" && nineteen84[column["Owned Copies"]!] == "2")
        #expect(nineteen84[column["Exclusive Shelf"]!] == "to-read")
        let omens = try #require(row(ExchangeBooks.all[0].title))
        #expect(omens[column["Author"]!] == "Terry Pratchett" && omens[column["Additional Authors"]!] == "Neil Gaiman")
        #expect(omens[column["Exclusive Shelf"]!] == "read" && omens[column["Date Added"]!] == "2023/11/16")
        #expect(row(ExchangeBooks.all[1].title)?[column["Exclusive Shelf"]!] == "currently-reading")

        // What the format does not carry is gone, as documented; dates keep their day (UTC).
        let odyssey = try #require(back.first { $0.isbn13 == "9780140268867" })
        #expect(odyssey.subtitle == nil && odyssey.categories.isEmpty && odyssey.description == nil)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        for original in ExchangeBooks.all {
            let copy = try #require(back.first { $0.title == original.title })
            #expect(copy.dateAdded == utc.startOfDay(for: original.dateAdded), "\(original.title)")
        }

        // Importing the same file again adds nothing.
        let again = try LibraryExchange.importCSV(csv, into: target)
        #expect(again.imported.isEmpty)
        #expect(again.duplicates == Array(2...7))
        #expect(try target.count() == ExchangeBooks.all.count)
    }

    /// Goodreads titles often start with a quotation (`"Surely You're Joking, Mr. Feynman!":
    /// Adventures of a Curious Character` is one), and notes end with one.
    @Test("a title that starts with a quote and notes that end with one survive export and import")
    func quotesAtTheEdges() throws {
        let books = [
            Book(isbn: ISBN("9780393316049"), title: "\"Surely You're Joking, Mr. Feynman!\": Adventures of a Curious Character",
                 authors: ["Richard P. Feynman"], dateAdded: ExchangeBooks.day(1), readingStatus: .read, notes: "Dad said \"read it\""),
        ]
        let (_, result, target) = try ExchangeBooks.roundTrip(books)
        #expect(result.imported == [2])
        let back = try target.list()
        #expect(back.map(\.title) == [books[0].title])
        #expect(back.map(\.notes) == [books[0].notes])
    }

    @Test("notes with a Windows (CRLF) line break survive export and import")
    func crlfNotes() throws {
        let books = [Book(isbn: ISBN("9780451524935"), title: "1984", authors: ["George Orwell"], dateAdded: ExchangeBooks.day(1),
                          notes: "first line\r\nsecond line")]
        let (csv, result, target) = try ExchangeBooks.roundTrip(books)
        #expect(CSVReader.rows(csv).count == 2, "one header and one book: \(csv.debugDescription)")
        #expect(result.imported == [2] && result.skipped.isEmpty, "\(result)")
        #expect(try target.list().map(\.notes) == [books[0].notes])
    }

    /// Owning two editions of one book is common; the ISBN tells them apart, and the doc of
    /// `addUnlessPresent` matches by title and author only books without an ISBN.
    @Test("two editions of one title (different ISBNs) both survive export and import")
    func twoEditions() throws {
        let books = [
            Book(isbn: ISBN("9780618260300"), title: "The Hobbit", authors: ["J.R.R. Tolkien"], dateAdded: ExchangeBooks.day(1)),
            Book(isbn: ISBN("9780547928227"), title: "The Hobbit", authors: ["J.R.R. Tolkien"], dateAdded: ExchangeBooks.day(2)),
        ]
        let (_, result, target) = try ExchangeBooks.roundTrip(books)
        #expect(result.imported == [2, 3], "\(result)")
        #expect(Set(try target.list().compactMap(\.isbn13)) == ["9780618260300", "9780547928227"])
        // Imported one file at a time, they are both kept too.
        let oneByOne = try LibraryDatabase.inMemory()
        for b in books { _ = try LibraryExchange.importCSV(LibraryExchange.goodreadsCSV([b]), into: oneByOne) }
        #expect(try oneByOne.count() == 2)
    }

    static let goodreads = #"""
        Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
        2767052,"The Hunger Games (The Hunger Games, #1)",Suzanne Collins,"Collins, Suzanne",,"=""0439023483""","=""9780439023481""",5,4.33,Scholastic Press,Hardcover,374,2008,2008,2020/01/15,2019/05/03,,,read,,,,1,0
        33574273,The Elements of Style,William Strunk Jr.,"Jr., William Strunk","E.B. White, Roger Angell","=""""","=""""",0,4.18,Longman,Paperback,105,1999,1918,,2021/12/31,currently-reading,currently-reading (#1),currently-reading,,,,0,0
        6148028,"Catching Fire (The Hunger Games, #2)",Suzanne Collins,"Collins, Suzanne",,"=""0439023484""","=""9780439023482""",3,4.30,Scholastic,Hardcover,391,2009,2009,,2018/02/28,to-read,to-read (#3),to-read,,,,0,0
        55030,"Cosmos: A ""Personal"" Voyage, Revised",Carl Sagan,"Sagan, Carl",,"=""0345331354""","=""9780345331359""",4,4.39,Ballantine,Paperback,396,1985,1980,,2017/07/04,"favorites, classics","favorites (#1), classics (#2)",favorites,,,"Re-read ""slowly"", in 2020",0,1

        """#

    @Test("a Goodreads export with its quirks: wrappers, a bad check digit, quotes, several authors, shelves, rating 0, dates")
    func goodreadsQuirks() throws {
        let library = try LibraryDatabase.inMemory()
        let result = try LibraryExchange.importCSV(Self.goodreads, into: library, source: "goodreads")
        #expect(result.imported == [2, 3, 4, 5])
        #expect(result.skipped.isEmpty && result.duplicates.isEmpty)
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.hasPrefix("row 4: ") == true && result.warnings.first?.contains("check digit") == true, "\(result.warnings)")

        let books = Dictionary(try library.list().map { ($0.title, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(books.count == 4)
        let hunger = try #require(books["The Hunger Games (The Hunger Games, #1)"])
        #expect(hunger.isbn13 == "9780439023481" && hunger.isbn10 == "0439023483")
        #expect(hunger.authors == ["Suzanne Collins"])
        #expect(hunger.rating == 5 && hunger.readingStatus == .read)
        #expect(hunger.dateAdded == ExchangeBooks.utcDay(2019, 5, 3))
        #expect(hunger.publisher == "Scholastic Press" && hunger.pageCount == 374 && hunger.year == 2008)
        #expect(hunger.copies == 1 && hunger.source == "goodreads" && hunger.owned)

        let elements = try #require(books["The Elements of Style"])
        #expect(elements.isbn13 == nil && elements.isbn10 == nil)
        #expect(elements.authors == ["William Strunk Jr.", "E.B. White", "Roger Angell"])
        #expect(elements.rating == nil, "My Rating 0 means not rated")
        #expect(elements.readingStatus == .currentlyReading)
        #expect(elements.dateAdded == ExchangeBooks.utcDay(2021, 12, 31))

        let catching = try #require(books["Catching Fire (The Hunger Games, #2)"])
        #expect(catching.isbn13 == nil, "a wrong check digit is dropped")
        #expect(catching.rating == 3 && catching.readingStatus == .wantToRead)
        #expect(catching.dateAdded == ExchangeBooks.utcDay(2018, 2, 28))

        let cosmos = try #require(books["Cosmos: A \"Personal\" Voyage, Revised"])
        #expect(cosmos.isbn13 == "9780345331359")
        #expect(cosmos.readingStatus == .wantToRead, "a custom exclusive shelf is not a reading status")
        #expect(cosmos.notes == "Re-read \"slowly\", in 2020")
        #expect(cosmos.rating == 4 && cosmos.copies == 1)

        // The same file again: all duplicates, nothing added.
        let again = try LibraryExchange.importCSV(Self.goodreads, into: library)
        #expect(again.imported.isEmpty)
        #expect(again.duplicates == [2, 3, 4, 5])
        #expect(try library.count() == 4)
    }

    @Test("a plain CSV with columns isbn, Title, AUTHORS in that order")
    func plainColumns() throws {
        let text = "isbn,Title,AUTHORS\r\n9780143039952,The Odyssey,Homer\r\n0-439-02348-3,The Hunger Games,Suzanne Collins\r\n"
            + ",Good Omens,Terry Pratchett; Neil Gaiman\r\n,,\r\n"
        let library = try LibraryDatabase.inMemory()
        let result = try LibraryExchange.importCSV(text, into: library)
        #expect(result.imported == [2, 3, 4])
        #expect(result.skipped.count == 1 && result.skipped.first?.hasPrefix("row 5:") == true, "\(result.skipped)")
        let books = try library.list()
        #expect(ExchangeBooks.keys(books) == [
            ExchangeKey(Book(isbn: ISBN("9780143039952"), title: "The Odyssey", authors: ["Homer"])),
            ExchangeKey(Book(isbn: ISBN("9780439023481"), title: "The Hunger Games", authors: ["Suzanne Collins"])),
            ExchangeKey(Book(title: "Good Omens", authors: ["Terry Pratchett", "Neil Gaiman"])),
        ], "\(books.map(ExchangeKey.init))")
        // An ISBN-only CSV works too.
        let isbnOnly = try LibraryDatabase.inMemory()
        #expect(try LibraryExchange.importCSV("ISBN13\n9780451524935\n", into: isbnOnly).imported == [2])
        #expect(try isbnOnly.list().map(\.isbn13) == ["9780451524935"])
    }

    @Test("a CSV with no title or ISBN column, or none at all, is refused with a clear error and nothing written",
          arguments: ["Author,Rating\nHomer,5\n", "", "\n\n"])
    func refused(text: String) throws {
        let library = try LibraryDatabase.inMemory()
        do {
            let result = try LibraryExchange.importCSV(text, into: library)
            Issue.record("accepted: \(result)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("title or ISBN") || error.message.contains("empty"), "\(error.message)")
        }
        #expect(try library.count(ownedOnly: false) == 0)
    }

    @Test("the header names the columns found when it has no title or ISBN")
    func refusalNamesColumns() throws {
        do {
            _ = try LibraryExchange.importCSV("Author,Rating\nHomer,5\n", into: try LibraryDatabase.inMemory())
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("no title or ISBN column") && error.message.contains("Author, Rating"), "\(error.message)")
        }
    }

    /// SQLite's lower() folds ASCII only, so a pre-filter `lower(title) = ?` against Swift's
    /// lowercased() misses titles with a non-ASCII capital.
    @Test("re-importing a book without ISBN whose title starts with a non-ASCII capital adds nothing")
    func nonASCIITitleDuplicate() throws {
        let text = "Title,Author\nÉmile,Jean-Jacques Rousseau\nÜber Sprache,Wilhelm von Humboldt\n"
        let library = try LibraryDatabase.inMemory()
        #expect(try LibraryExchange.importCSV(text, into: library).imported == [2, 3])
        let again = try LibraryExchange.importCSV(text, into: library)
        #expect(again.imported.isEmpty && again.duplicates == [2, 3], "\(again)")
        #expect(try library.count() == 2)
    }
}

@Suite("Exchange: shelfscan library export and import",
       .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"),
       .timeLimit(.minutes(10)))
struct ExchangeCLITests {
    /// `library list --format csv` rows without the id column, sorted; and the header.
    static func listed(_ library: String, in dir: TemporaryDirectory) async throws -> (header: [String], rows: [[String]]) {
        let run = try await CLI.run(["library", "list", "--format", "csv", "--library", library], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = CSVReader.rows(run.stdout)
        let header = try #require(rows.first)
        #expect(header.first == "id")
        return (header, rows.dropFirst().map { Array($0.dropFirst()) }.sorted { $0.joined(separator: "\u{1}") < $1.joined(separator: "\u{1}") })
    }

    @Test("library export --format goodreads -o FILE, then library import FILE: the same list in the other library")
    func exportThenImport() async throws {
        let dir = try TemporaryDirectory()
        let first = dir.file("first.sqlite"), second = dir.file("second.sqlite"), file = dir.file("export/goodreads.csv")
        try FileManager.default.createDirectory(atPath: dir.file("export"), withIntermediateDirectories: true)
        let db = try LibraryDatabase.open(path: first)
        for b in ExchangeBooks.all { try db.add(b) }

        let export = try await CLI.run(["library", "export", "--format", "goodreads", "-o", file, "--library", first], in: dir)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.isEmpty)
        #expect(export.stderr.contains("exported \(ExchangeBooks.all.count) books"), "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
        let text = String(decoding: try Fixtures.bytes(file), as: UTF8.self)
        #expect(CSVReader.rows(text).first == LibraryExchange.goodreadsColumns)

        let imported = try await CLI.run(["library", "import", file, "--library", second], in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("\(ExchangeBooks.all.count) imported, 0 already in the library, 0 skipped"), "\(imported.stdout)")

        let a = try await Self.listed(first, in: dir), b = try await Self.listed(second, in: dir)
        #expect(a.header == b.header)
        #expect(a.rows.count == ExchangeBooks.all.count)
        #expect(a.rows == b.rows)

        // Importing it a second time changes nothing.
        let again = try await CLI.run(["library", "import", file, "--library", second], in: dir)
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("0 imported, \(ExchangeBooks.all.count) already in the library"), "\(again.stdout)")
        #expect(try await Self.listed(second, in: dir).rows == a.rows)
    }

    @Test("library import of a CSV without title or ISBN column fails with one clear error line")
    func importRefused() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("bad.csv", Array("Author,Rating\nHomer,5\n".utf8))
        let run = try await CLI.run(["library", "import", file, "--library", dir.file("library.sqlite")], in: dir)
        #expect(run.status != 0)
        #expect(run.stderr.contains(file) && run.stderr.contains("no title or ISBN column"), "\(run.stderr)")
    }
}
