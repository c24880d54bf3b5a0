/// How answers from several catalogues, and the library's own data, are combined.
///
/// Rules (after calibre's metadata merge):
/// - Data already in the library wins; catalogue data only fills fields that are empty there.
/// - Between catalogues, per field: title, the shortest (catalogues append series and edition
///   notes, rarely drop words); subtitle, the first given; authors, the longest list; year, the
///   earliest; publisher, page count and language, the first source in priority order (Open
///   Library, then Google Books) that has one; categories, the union (first 8); description,
///   the longest; cover, the first source's that has one.
public enum MetadataMerge {
    /// Combines records of the same book from several sources, in priority order.
    public static func combine(_ records: [BookMetadata]) -> BookMetadata? {
        guard var merged = records.first else { return nil }
        for r in records.dropFirst() {
            if r.title.count < merged.title.count && !r.title.isEmpty { merged.title = r.title }
            merged.subtitle = merged.subtitle ?? r.subtitle
            if r.authors.count > merged.authors.count { merged.authors = r.authors }
            if let y = r.year { merged.year = min(merged.year ?? y, y) }
            merged.publisher = merged.publisher ?? r.publisher
            merged.pageCount = merged.pageCount ?? r.pageCount
            merged.language = merged.language ?? r.language
            var seen = Set(merged.categories.map { $0.lowercased() })
            for c in r.categories where seen.insert(c.lowercased()).inserted { merged.categories.append(c) }
            merged.categories = Array(merged.categories.prefix(8))
            if (r.description?.count ?? 0) > (merged.description?.count ?? 0) { merged.description = r.description }
            merged.coverURL = merged.coverURL ?? r.coverURL
            merged.isbn13 = merged.isbn13 ?? r.isbn13
            merged.isbn10 = merged.isbn10 ?? r.isbn10
            for s in r.sources where !merged.sources.contains(s) { merged.sources.append(s) }
        }
        return merged
    }

    /// Fills the empty fields of a library book from catalogue data; never overwrites.
    public static func fill(_ book: Book, with m: BookMetadata) -> Book {
        var b = book
        if b.title.isEmpty { b.title = m.title }
        b.subtitle = b.subtitle ?? m.subtitle
        if b.authors.isEmpty { b.authors = m.authors }
        b.publisher = b.publisher ?? m.publisher
        b.year = b.year ?? m.year
        b.pageCount = b.pageCount ?? m.pageCount
        b.language = b.language ?? m.language
        if b.categories.isEmpty { b.categories = m.categories }
        b.description = b.description ?? m.description
        b.coverURL = b.coverURL ?? m.coverURL
        if b.isbn13 == nil, let isbn = m.isbn13 { b.isbn13 = isbn; b.isbn10 = m.isbn10 }
        return b
    }

    /// A reference-catalogue row taken onto the shelves: the new record's data, with the
    /// catalogue row's details where the new record has none, under the row's id.
    public static func adopt(_ catalogueRow: Book, as book: Book) -> Book {
        var adopted = book
        adopted.id = catalogueRow.id
        if adopted.title.isEmpty { adopted.title = catalogueRow.title }
        if adopted.authors.isEmpty { adopted.authors = catalogueRow.authors }
        adopted.subtitle = adopted.subtitle ?? catalogueRow.subtitle
        adopted.publisher = adopted.publisher ?? catalogueRow.publisher
        adopted.year = adopted.year ?? catalogueRow.year
        adopted.pageCount = adopted.pageCount ?? catalogueRow.pageCount
        adopted.language = adopted.language ?? catalogueRow.language
        if adopted.categories.isEmpty { adopted.categories = catalogueRow.categories }
        adopted.description = adopted.description ?? catalogueRow.description
        adopted.coverURL = adopted.coverURL ?? catalogueRow.coverURL
        adopted.owned = true
        return adopted
    }

    /// A new library record from catalogue data.
    public static func book(from m: BookMetadata, status: ReadingStatus? = .wantToRead, owned: Bool = true) -> Book {
        var b = Book(isbn: m.isbn13.flatMap { ISBN($0) }, title: m.title, subtitle: m.subtitle, authors: m.authors,
                     publisher: m.publisher, year: m.year, pageCount: m.pageCount, language: m.language,
                     categories: m.categories, description: m.description, coverURL: m.coverURL,
                     source: m.sources.first?.rawValue ?? "manual", readingStatus: status, owned: owned)
        if b.isbn13 == nil { b.isbn10 = m.isbn10 }
        return b
    }
}
