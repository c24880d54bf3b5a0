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
    /// The columns `init(matchRow:)` reads, in its order.
    static let matchColumns = ["id", "isbn13", "isbn10", "title", "subtitle", "authors", "publisher", "year", "pageCount",
                               "language", "categories", "description", "coverURL", "source", "dateAdded", "readingStatus",
                               "rating", "notes", "owned", "copies"]

    /// A row of `SELECT <matchColumns> FROM books`, decoded as `Codable` would decode it, by column
    /// position (`LibraryDatabase.matchableBooks`). A value of the wrong type (text in `year`,
    /// written by another tool) reads as nil, not as a crash.
    init(matchRow row: Row) throws {
        func value<T: DatabaseValueConvertible>(_ column: Int) -> T? { T.fromDatabaseValue(row[column] as DatabaseValue) }
        guard let dateAdded: Date = value(14) else {
            throw DatabaseError(message: "book \(value(0) as Int64? ?? 0): dateAdded is not a date")
        }
        self.init(title: value(3) ?? "", authors: try Self.strings(String.fromDatabaseValue(row[5])), dateAdded: dateAdded)
        id = value(0)
        isbn13 = value(1)
        isbn10 = value(2)
        subtitle = value(4)
        publisher = value(6)
        year = value(7)
        pageCount = value(8)
        language = value(9)
        categories = try Self.strings(String.fromDatabaseValue(row[10]))
        description = value(11)
        coverURL = value(12)
        source = value(13) ?? ""
        readingStatus = value(15)
        rating = value(16)
        notes = value(17)
        owned = value(18) ?? true
        copies = value(19) ?? 1
    }

    /// The same row read straight off SQLite's statement (`LibraryDatabase.matchableBooks`: a
    /// 25,000-row catalogue is read before every scan, and going through `DatabaseValue` for
    /// each column cost about 0.1 s of CPU). Each column of the type its field has (text for
    /// text, an integer for numbers) is read as `DatabaseValue` would have read it; any other
    /// type goes through `DatabaseValue` and `fromDatabaseValue` as `init(matchRow:)` does, so
    /// the two give the same book for every row. `dates` remembers the last date text read
    /// (rows imported together share it).
    init(matchStatement statement: SQLiteStatement, dates: inout DateMemo) throws {
        func text(_ column: CInt) -> String? {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: return nil
            case SQLITE_TEXT: return String(cString: sqlite3_column_text(statement, column))
            default: return String.fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: column))
            }
        }
        func integer(_ column: CInt) -> Int64? {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: return nil
            case SQLITE_INTEGER: return sqlite3_column_int64(statement, column)
            default: return Int64.fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: column))
            }
        }
        func number(_ column: CInt) -> Int? { integer(column).flatMap { Int(exactly: $0) } }
        func flag(_ column: CInt) -> Bool? {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: return nil
            case SQLITE_INTEGER: return sqlite3_column_int64(statement, column) != 0
            default: return Bool.fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: column))
            }
        }
        let date: Date?
        if sqlite3_column_type(statement, 14) == SQLITE_TEXT {
            date = dates.date(String(cString: sqlite3_column_text(statement, 14)))
        } else {
            date = Date.fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: 14))
        }
        guard let dateAdded = date else {
            throw DatabaseError(message: "book \(integer(0) ?? 0): dateAdded is not a date")
        }
        self.init(title: text(3) ?? "", authors: try Self.strings(text(5)), dateAdded: dateAdded)
        id = integer(0)
        isbn13 = text(1)
        isbn10 = text(2)
        subtitle = text(4)
        publisher = text(6)
        year = number(7)
        pageCount = number(8)
        language = text(9)
        categories = try Self.strings(text(10))
        description = text(11)
        coverURL = text(12)
        source = text(13) ?? ""
        readingStatus = text(15).flatMap(ReadingStatus.init(rawValue:))
        rating = number(16)
        notes = text(17)
        owned = flag(18) ?? true
        copies = number(19) ?? 1
    }

    /// The last date text read and its date (`Date.fromDatabaseValue`, which parses it).
    struct DateMemo {
        private var last: (text: String, date: Date?)?

        init() {}

        mutating func date(_ text: String) -> Date? {
            if let last, last.text == text { return last.date }
            let date = Date.fromDatabaseValue(text.databaseValue)
            last = (text, date)
            return date
        }
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
