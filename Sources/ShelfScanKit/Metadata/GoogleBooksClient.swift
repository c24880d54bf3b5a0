import Foundation

/// Google Books: `volumes?q=isbn:...` and `intitle:`/`inauthor:` searches.
public struct GoogleBooksClient: Sendable {
    public let baseURL: String
    public let apiKey: String?
    let fetcher: PoliteFetcher
    static let service = "Google Books"

    public init(baseURL: String, apiKey: String?, fetcher: PoliteFetcher) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.fetcher = fetcher
    }

    /// The volume for an ISBN-13, or nil. Results whose identifiers do not include the ISBN are
    /// rejected: Google sometimes answers an ISBN query with another book.
    public func book(isbn13: String) async throws(ShelfScanError) -> BookMetadata? {
        let items = try await volumes(query: "isbn:\(isbn13)", limit: 5)
        let isbn10 = ISBN(isbn13)?.isbn10
        for item in items {
            guard let info = item["volumeInfo"] as? [String: Any] else { continue }
            let ids = Self.identifiers(info)
            if ids.contains(isbn13) || (isbn10.map { ids.contains($0) } ?? false) {
                var book = Self.parse(info)
                book?.isbn13 = isbn13
                book?.isbn10 = isbn10
                return book
            }
        }
        return nil
    }

    /// Title (and author) search.
    public func search(title: String, author: String?, limit: Int = 5) async throws(ShelfScanError) -> [BookMetadata] {
        var q = "intitle:\(Self.quoted(title))"
        if let author, !author.isEmpty { q += " inauthor:\(Self.quoted(author))" }
        return try await volumes(query: q, limit: limit).compactMap { ($0["volumeInfo"] as? [String: Any]).flatMap(Self.parse) }
    }

    private func volumes(query: String, limit: Int) async throws(ShelfScanError) -> [[String: Any]] {
        var url = "\(baseURL)/volumes?q=\(OpenLibraryClient.encode(query))&maxResults=\(limit)&printType=books"
        if let apiKey { url += "&key=\(OpenLibraryClient.encode(apiKey))" }
        let response = try await fetcher.get(url, service: Self.service)
        if response.status == 404 { return [] }
        let object = try JSONValue.object(response.body, service: Self.service)
        // No "items" key at all when nothing matched.
        return (object["items"] as? [Any])?.compactMap { $0 as? [String: Any] } ?? []
    }

    static func identifiers(_ info: [String: Any]) -> Set<String> {
        Set(((info["industryIdentifiers"] as? [Any]) ?? []).compactMap { ($0 as? [String: Any])?["identifier"] as? String })
    }

    /// One `volumeInfo`.
    static func parse(_ info: [String: Any]) -> BookMetadata? {
        guard let title = JSONValue.string(info["title"]) else { return nil }
        let isbn = identifiers(info).compactMap { ISBN($0) }.sorted { $0.isbn13 < $1.isbn13 }.first
        let images = info["imageLinks"] as? [String: Any]
        let cover = ["extraLarge", "large", "medium", "small", "thumbnail", "smallThumbnail"].lazy
            .compactMap { JSONValue.string(images?[$0]) }.first
        return BookMetadata(
            isbn13: isbn?.isbn13, isbn10: isbn?.isbn10, title: title, subtitle: JSONValue.string(info["subtitle"]),
            authors: JSONValue.strings(info["authors"]), publisher: JSONValue.string(info["publisher"]),
            year: JSONValue.year(info["publishedDate"]),
            pageCount: JSONValue.int(info["pageCount"]).flatMap { $0 > 0 ? $0 : nil } ?? JSONValue.int(info["printedPageCount"]),
            language: JSONValue.language(JSONValue.string(info["language"])), categories: JSONValue.strings(info["categories"]),
            description: JSONValue.string(info["description"]), coverURL: JSONValue.secure(cover), sources: [.googlebooks])
    }

    private static func quoted(_ s: String) -> String {
        s.contains(" ") ? "\"\(s.replacingOccurrences(of: "\"", with: ""))\"" : s
    }
}
