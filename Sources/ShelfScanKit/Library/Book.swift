import Foundation
import GRDB

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
    /// position (`LibraryDatabase.matchableBooks`).
    init(matchRow row: Row) throws {
        guard let dateAdded = Date.fromDatabaseValue(row[14]) else {
            throw DatabaseError(message: "book \(row[0] as Int64? ?? 0): dateAdded is not a date")
        }
        let status = row[15] as DatabaseValue
        self.init(title: row[3] as String? ?? "", authors: try Self.strings(row[5]), dateAdded: dateAdded)
        id = row[0]
        isbn13 = row[1]
        isbn10 = row[2]
        subtitle = row[4]
        publisher = row[6]
        year = row[7]
        pageCount = row[8]
        language = row[9]
        categories = try Self.strings(row[10])
        description = row[11]
        coverURL = row[12]
        source = row[13] as String? ?? ""
        readingStatus = status.isNull ? nil : ReadingStatus.fromDatabaseValue(status)
        rating = row[16]
        notes = row[17]
        owned = row[18] as Bool? ?? true
        copies = row[19] as Int? ?? 1
    }

    /// A JSON array of strings as the column stores it (`["A","B"]`): split by hand when no
    /// string in it holds an escape, through `JSONDecoder` otherwise.
    static func strings(_ value: DatabaseValue) throws -> [String] {
        guard let text = String.fromDatabaseValue(value) else { return [] }
        let utf8 = text.utf8
        if !utf8.contains(UInt8(ascii: "\\")), utf8.first == UInt8(ascii: "["), utf8.last == UInt8(ascii: "]") {
            let inner = text.dropFirst().dropLast()
            if inner.isEmpty { return [] }
            // Without escapes no string holds a quote, so `","` only ever separates two of them
            // (a quote left in a part: the array is spaced otherwise, `["A", "B"]`).
            if inner.first == "\"", inner.last == "\"", inner.count >= 2 {
                let parts = inner.dropFirst().dropLast().components(separatedBy: "\",\"")
                if !parts.contains(where: { $0.contains("\"") }) { return parts }
            }
        }
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }
}
