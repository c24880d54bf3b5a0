import Foundation
import GRDB
import GRDBSQLite

/// Where a reader is with a book.
public enum ReadingStatus: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case wantToRead = "want-to-read"
    case currentlyReading = "currently-reading"
    case read
}

/// A row of the `books` table: a book in the user's library (or, with `owned == false`, a
/// reference-catalogue entry used only for matching).
public struct Book: Codable, Sendable, Equatable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "books"

    public var id: Int64?
    public var isbn13: String?
    public var isbn10: String?
    public var title: String
    public var subtitle: String?
    public var authors: [String]
    public var publisher: String?
    public var year: Int?
    public var pageCount: Int?
    public var language: String?
    public var categories: [String]
    public var description: String?
    public var coverURL: String?
    /// Where the record came from: `manual`, `barcode`, `import`, `openlibrary`, `googlebooks`, `catalog`.
    public var source: String
    public var dateAdded: Date
    public var readingStatus: ReadingStatus?
    /// 1-5 stars.
    public var rating: Int?
    public var notes: String?
    /// False for reference-catalogue rows that are not on the user's shelves.
    public var owned: Bool
    /// Copies on the shelves (an import with `--copies` counts repeats).
    public var copies: Int

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let isbn13 = Column(CodingKeys.isbn13)
        static let title = Column(CodingKeys.title)
        static let authors = Column(CodingKeys.authors)
        static let readingStatus = Column(CodingKeys.readingStatus)
        static let owned = Column(CodingKeys.owned)
        static let dateAdded = Column(CodingKeys.dateAdded)
    }

    public init(
        id: Int64? = nil, isbn: ISBN? = nil, title: String, subtitle: String? = nil, authors: [String] = [],
        publisher: String? = nil, year: Int? = nil, pageCount: Int? = nil, language: String? = nil,
        categories: [String] = [], description: String? = nil, coverURL: String? = nil,
        source: String = "manual", dateAdded: Date = Date(), readingStatus: ReadingStatus? = .wantToRead,
        rating: Int? = nil, notes: String? = nil, owned: Bool = true, copies: Int = 1
    ) {
        self.id = id
        self.isbn13 = isbn?.isbn13
        self.isbn10 = isbn?.isbn10
        self.title = title
        self.subtitle = subtitle
        self.authors = authors
        self.publisher = publisher
        self.year = year
        self.pageCount = pageCount
        self.language = language
        self.categories = categories
        self.description = description
        self.coverURL = coverURL
        self.source = source
        self.dateAdded = dateAdded
        self.readingStatus = readingStatus
        self.rating = rating
        self.notes = notes
        self.owned = owned
        self.copies = copies
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Book {
    /// The columns `init(matchColumns:)` reads, in its order.
    static let matchColumns = ["id", "isbn13", "isbn10", "title", "subtitle", "authors", "publisher", "year", "pageCount",
                               "language", "categories", "description", "coverURL", "source", "dateAdded", "readingStatus",
                               "rating", "notes", "owned", "copies"]

    /// A row of `SELECT <matchColumns> FROM books`, decoded as `Codable` would decode it, by column
    /// position (`LibraryDatabase.matchableBooks`). A value of the wrong type (text in `year`,
    /// written by another tool) reads as nil, not as a crash.
    init<Columns: MatchColumns>(matchColumns row: inout Columns) throws {
        guard let dateAdded = row.date(14) else {
            throw DatabaseError(message: "book \(row.integer(0) ?? 0): dateAdded is not a date")
        }
        self.init(title: row.text(3) ?? "", authors: try Self.strings(row.text(5)), dateAdded: dateAdded)
        id = row.integer(0)
        isbn13 = row.text(1)
        isbn10 = row.text(2)
        subtitle = row.text(4)
        publisher = row.text(6)
        year = row.number(7)
        pageCount = row.number(8)
        language = row.text(9)
        categories = try Self.strings(row.text(10))
        description = row.text(11)
        coverURL = row.text(12)
        source = row.text(13) ?? ""
        readingStatus = row.text(15).flatMap(ReadingStatus.init(rawValue:))
        rating = row.number(16)
        notes = row.text(17)
        owned = row.flag(18) ?? true
        copies = row.number(19) ?? 1
    }

    /// A JSON array of strings as the column stores it (`["A","B"]`): split by hand when no
    /// string in it holds an escape, through `JSONDecoder` otherwise.
    static func strings(_ text: String?) throws -> [String] {
        guard let text else { return [] }
        if let parts = plainStrings(Array(text.utf8)) { return parts }
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    /// The strings of a JSON array written without escapes or spaces (`["A","B"]`, as this
    /// library writes them), split on its bytes (a catalogue of 100,000 rows has as many author
    /// arrays to read for every scan); nil for any other text.
    static func plainStrings(_ bytes: [UInt8]) -> [String]? {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ",")
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]"),
              !bytes.contains(UInt8(ascii: "\\")) else { return nil }
        if bytes.count == 2 { return [] }
        guard bytes.count >= 4, bytes[1] == quote, bytes[bytes.count - 2] == quote else { return nil }
        // Without escapes no string holds a quote, so `","` only ever separates two of them; a
        // quote anywhere else (a spaced array, `["A", "B"]`) is not this form.
        var parts: [String] = []
        var start = 2
        var i = 2
        let end = bytes.count - 2
        while i < end {
            if bytes[i] == quote {
                guard i + 2 < end, bytes[i + 1] == comma, bytes[i + 2] == quote else { return nil }
                parts.append(String(decoding: bytes[start..<i], as: UTF8.self))
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        parts.append(String(decoding: bytes[start..<end], as: UTF8.self))
        return parts
    }
}

/// How `Book.init(matchColumns:)` reads a row's columns, by position, each as GRDB's
/// `fromDatabaseValue` reads the column's `DatabaseValue` for the field's type.
protocol MatchColumns {
    func text(_ column: Int32) -> String?
    func integer(_ column: Int32) -> Int64?
    func flag(_ column: Int32) -> Bool?
    mutating func date(_ column: Int32) -> Date?
}

extension MatchColumns {
    func number(_ column: Int32) -> Int? { integer(column).flatMap { Int(exactly: $0) } }
}

/// A GRDB row's columns, each through `DatabaseValue` (what `matchableBooks` did until the
/// fiftieth session; the tests' reference for `StatementColumns`).
struct RowColumns: MatchColumns {
    let row: Row

    func text(_ column: Int32) -> String? { String.fromDatabaseValue(row[Int(column)]) }
    func integer(_ column: Int32) -> Int64? { Int64.fromDatabaseValue(row[Int(column)]) }
    func flag(_ column: Int32) -> Bool? { Bool.fromDatabaseValue(row[Int(column)]) }
    func date(_ column: Int32) -> Date? { Date.fromDatabaseValue(row[Int(column)]) }
}

/// The current row of SQLite's statement, read straight off it (a 25,000-row catalogue is read
/// before every scan, and a `DatabaseValue` for each column cost about 0.1 s of CPU). A column
/// of the type its field has (text for text, an integer for numbers and flags) is read as
/// `DatabaseValue` would read it; any other type goes through `DatabaseValue`, so both give the
/// same book for every row. The last date text read is remembered with its date (the rows of
/// one import share it).
struct StatementColumns: MatchColumns {
    let statement: SQLiteStatement
    private var lastDate: (text: String, date: Date?)?

    init(_ statement: SQLiteStatement) {
        self.statement = statement
    }

    private func value(_ column: Int32) -> DatabaseValue { DatabaseValue(sqliteStatement: statement, index: column) }

    func text(_ column: Int32) -> String? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: nil
        case SQLITE_TEXT: String(cString: sqlite3_column_text(statement, column))
        default: String.fromDatabaseValue(value(column))
        }
    }

    func integer(_ column: Int32) -> Int64? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: nil
        case SQLITE_INTEGER: sqlite3_column_int64(statement, column)
        default: Int64.fromDatabaseValue(value(column))
        }
    }

    func flag(_ column: Int32) -> Bool? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: nil
        case SQLITE_INTEGER: sqlite3_column_int64(statement, column) != 0
        default: Bool.fromDatabaseValue(value(column))
        }
    }

    mutating func date(_ column: Int32) -> Date? {
        guard sqlite3_column_type(statement, column) == SQLITE_TEXT else { return Date.fromDatabaseValue(value(column)) }
        let text = String(cString: sqlite3_column_text(statement, column))
        if let lastDate, lastDate.text == text { return lastDate.date }
        let date = Date.fromDatabaseValue(text.databaseValue)
        lastDate = (text, date)
        return date
    }
}
