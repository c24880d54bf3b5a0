import Foundation

/// Open Library: ISBN lookups through `/api/books` (several ISBNs per request) and
/// title/author search through `/search.json`.
public struct OpenLibraryClient: Sendable {
    public let baseURL: String
    public let coversURL: String
    let fetcher: PoliteFetcher
    static let service = "Open Library"

    public init(baseURL: String, coversURL: String, fetcher: PoliteFetcher) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.coversURL = coversURL.hasSuffix("/") ? String(coversURL.dropLast()) : coversURL
        self.fetcher = fetcher
    }

    /// Looks up ISBN-13s, up to 20 per request. Absent from the result: not known to Open Library.
    public func books(isbns: [String]) async throws(ShelfScanError) -> [String: BookMetadata] {
        var found: [String: BookMetadata] = [:]
        for start in stride(from: 0, to: isbns.count, by: 20) {
            let batch = Array(isbns[start..<min(start + 20, isbns.count)])
            let keys = batch.map { "ISBN:\($0)" }.joined(separator: ",")
            let url = "\(baseURL)/api/books?bibkeys=\(keys)&jscmd=data&format=json"
            let response = try await fetcher.get(url, service: Self.service)
            if response.status == 404 { continue }
            let object = try JSONValue.object(response.body, service: Self.service)
            for isbn in batch {
                if let record = object["ISBN:\(isbn)"] as? [String: Any], let book = Self.parseData(record, isbn: isbn) {
                    found[isbn] = book
                }
            }
        }
        return found
    }

    /// Title (and author) search; best matches first, at most `limit`.
    public func search(title: String, author: String?, limit: Int = 5) async throws(ShelfScanError) -> [BookMetadata] {
        var query = "title=\(Self.encode(title))"
        if let author, !author.isEmpty { query += "&author=\(Self.encode(author))" }
        let fields = "key,title,subtitle,author_name,first_publish_year,publisher,isbn,cover_i,language,number_of_pages_median,subject"
        let url = "\(baseURL)/search.json?\(query)&limit=\(limit)&fields=\(fields)"
        let response = try await fetcher.get(url, service: Self.service)
        if response.status == 404 { return [] }
        let object = try JSONValue.object(response.body, service: Self.service)
        return ((object["docs"] as? [Any]) ?? []).compactMap { ($0 as? [String: Any]).flatMap { parseSearchDoc($0) } }
    }

    /// One record of `/api/books?jscmd=data`.
    static func parseData(_ r: [String: Any], isbn: String?) -> BookMetadata? {
        guard let title = JSONValue.string(r["title"]) else { return nil }
        let authors = ((r["authors"] as? [Any]) ?? []).compactMap { JSONValue.string(($0 as? [String: Any])?["name"]) }
        let publishers = ((r["publishers"] as? [Any]) ?? []).compactMap { JSONValue.string(($0 as? [String: Any])?["name"]) }
        let subjects = ((r["subjects"] as? [Any]) ?? []).compactMap { JSONValue.string(($0 as? [String: Any])?["name"] ?? $0) }
        let ids = r["identifiers"] as? [String: Any]
        let isbn13 = isbn ?? JSONValue.strings(ids?["isbn_13"]).compactMap { ISBN($0)?.isbn13 }.first
        let cover = r["cover"] as? [String: Any]
        return BookMetadata(
            isbn13: isbn13, isbn10: isbn13.flatMap { ISBN($0)?.isbn10 }, title: title,
            subtitle: JSONValue.string(r["subtitle"]), authors: authors, publisher: publishers.first,
            year: JSONValue.year(r["publish_date"]), pageCount: JSONValue.int(r["number_of_pages"]),
            language: nil, categories: Array(subjects.prefix(8)), description: JSONValue.text(r["description"]),
            coverURL: JSONValue.string(cover?["large"]) ?? JSONValue.string(cover?["medium"]), sources: [.openlibrary])
    }

    /// One document of `/search.json`.
    func parseSearchDoc(_ d: [String: Any]) -> BookMetadata? {
        guard let title = JSONValue.string(d["title"]) else { return nil }
        // A search document lists the ISBNs of every edition; the first valid ISBN-13 stands for it.
        let isbns = JSONValue.strings(d["isbn"]).compactMap { ISBN($0) }
        let isbn = isbns.first { $0.isbn13.hasPrefix("978") || $0.isbn13.hasPrefix("979") }
        let coverID = JSONValue.int(d["cover_i"]).flatMap { $0 > 0 ? $0 : nil }
        return BookMetadata(
            isbn13: isbn?.isbn13, isbn10: isbn?.isbn10, title: title, subtitle: JSONValue.string(d["subtitle"]),
            authors: JSONValue.strings(d["author_name"]), publisher: JSONValue.strings(d["publisher"]).first,
            year: JSONValue.year(d["first_publish_year"]), pageCount: JSONValue.int(d["number_of_pages_median"]),
            language: JSONValue.language(JSONValue.strings(d["language"]).first),
            categories: Array(JSONValue.strings(d["subject"]).prefix(8)), description: nil,
            coverURL: coverID.map { "\(coversURL)/b/id/\($0)-L.jpg" }, sources: [.openlibrary])
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}
