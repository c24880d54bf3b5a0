import Foundation
import Testing
@testable import ShelfScanKit

/// The project's own catalogue responses, in the shapes the real APIs use (Open Library
/// `/api/books?jscmd=data` and `/search.json`, Google Books `/volumes`). Written here, not copied
/// from recorded responses, so that each test says exactly what it relies on.
enum CatalogueJSON {
    static let odysseyISBN = "9780143039952"
    static let nineteen84ISBN = "9780451524935"
    static let animalFarmISBN = "9780451526342"
    static let lordOfTheFliesISBN = "9780140283334"
    static let gatsbyISBN = "9780743273565"

    /// Open Library's answer for The Odyssey (Fagles translation), cover links under `coversURL`.
    static func openLibraryOdyssey(coversURL: String = "https://covers.openlibrary.org") -> String {
        """
        {
          "ISBN:9780143039952": {
            "url": "https://openlibrary.org/books/OL7354208M/The_Odyssey",
            "key": "/books/OL7354208M",
            "title": "The Odyssey",
            "authors": [
              {"url": "https://openlibrary.org/authors/OL4327048A/Homer", "name": "Homer"}
            ],
            "number_of_pages": 541,
            "identifiers": {
              "isbn_10": ["0143039954"],
              "isbn_13": ["9780143039952"],
              "openlibrary": ["OL7354208M"]
            },
            "publishers": [{"name": "Penguin Classics"}],
            "publish_places": [{"name": "New York"}],
            "publish_date": "November 28, 2006",
            "subjects": [
              {"name": "Epic poetry, Greek", "url": "https://openlibrary.org/subjects/epic_poetry,_greek"},
              {"name": "Odysseus (Greek mythology)", "url": "https://openlibrary.org/subjects/odysseus_(greek_mythology)"}
            ],
            "cover": {
              "small": "\(coversURL)/b/id/240726-S.jpg",
              "medium": "\(coversURL)/b/id/240726-M.jpg",
              "large": "\(coversURL)/b/id/240726-L.jpg"
            }
          }
        }
        """
    }

    /// Open Library's answer when it knows none of the ISBNs asked for.
    static let openLibraryEmpty = "{}"

    /// An Open Library record with a title and nothing else: no authors, publishers, cover, date.
    static func openLibraryBare(isbn: String, title: String) -> String {
        """
        {"ISBN:\(isbn)": {"url": "https://openlibrary.org/books/OL1M/x", "key": "/books/OL1M", "title": "\(title)",
          "identifiers": {"isbn_13": ["\(isbn)"]}}}
        """
    }

    /// An `/api/books` answer describing each ISBN as "Book <isbn>" by "Author <isbn>".
    static func openLibraryEcho(isbns: [String], coversURL: String? = nil) -> String {
        var object: [String: Any] = [:]
        for isbn in isbns {
            var record: [String: Any] = [
                "key": "/books/OL\(isbn.suffix(6))M", "title": "Book \(isbn)",
                "authors": [["name": "Author \(isbn)", "url": "https://openlibrary.org/authors/OL1A/x"]],
                "identifiers": ["isbn_13": [isbn]], "publishers": [["name": "Echo Press"]], "publish_date": "2001",
            ]
            if let coversURL {
                record["cover"] = ["small": "\(coversURL)/b/id/\(isbn.suffix(4))-S.jpg", "large": "\(coversURL)/b/id/\(isbn.suffix(4))-L.jpg"]
            }
            object["ISBN:\(isbn)"] = record
        }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A `/search.json` answer with documents in this order.
    static let openLibrarySearchOrwell = """
        {
          "numFound": 3, "start": 0, "numFoundExact": true, "num_found": 3, "q": "", "offset": null,
          "docs": [
            {"key": "/works/OL1168083W", "title": "Nineteen Eighty-Four", "author_name": ["George Orwell"],
             "first_publish_year": 1949, "publisher": ["Secker & Warburg", "Penguin"],
             "isbn": ["0451524934", "9780451524935"], "cover_i": 153541, "language": ["eng", "fre"],
             "number_of_pages_median": 328, "subject": ["Totalitarianism", "Dystopias"]},
            {"key": "/works/OL1168007W", "title": "Animal Farm", "author_name": ["George Orwell"],
             "first_publish_year": 1945, "isbn": ["9780451526342"], "cover_i": -1, "language": ["eng"]},
            {"key": "/works/OL99999W", "title": "Orwell on Truth"}
          ]
        }
        """

    /// A Google Books `/volumes` answer with these `volumeInfo` objects as items.
    static func googleVolumes(_ infos: [[String: Any]]) -> String {
        let items: [[String: Any]] = infos.enumerated().map { i, info in
            ["kind": "books#volume", "id": "vol\(i)AAAAJ", "etag": "etag\(i)",
             "selfLink": "https://www.googleapis.com/books/v1/volumes/vol\(i)AAAAJ", "volumeInfo": info,
             "saleInfo": ["country": "GB", "saleability": "NOT_FOR_SALE", "isEbook": false]]
        }
        let object: [String: Any] = ["kind": "books#volumes", "totalItems": items.count, "items": items]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Google's answer when nothing matched: no `items` key at all.
    static let googleNone = #"{"kind": "books#volumes", "totalItems": 0}"#

    /// A `volumeInfo` with ISBN_13 and ISBN_10 identifiers (ISBN_10 only for 978 ISBNs).
    static func googleInfo(isbn: String, title: String, authors: [String] = [], publisher: String? = nil,
                           publishedDate: String? = nil, pageCount: Int? = nil, categories: [String] = [],
                           description: String? = nil, thumbnail: String? = nil, language: String = "en") -> [String: Any] {
        var ids: [[String: String]] = [["type": "ISBN_13", "identifier": isbn]]
        if let isbn10 = ISBN(isbn)?.isbn10 { ids.append(["type": "ISBN_10", "identifier": isbn10]) }
        var info: [String: Any] = ["title": title, "industryIdentifiers": ids, "printType": "BOOK", "language": language]
        if !authors.isEmpty { info["authors"] = authors }
        if let publisher { info["publisher"] = publisher }
        if let publishedDate { info["publishedDate"] = publishedDate }
        if let pageCount { info["pageCount"] = pageCount }
        if !categories.isEmpty { info["categories"] = categories }
        if let description { info["description"] = description }
        if let thumbnail { info["imageLinks"] = ["smallThumbnail": thumbnail + "&zoom=5", "thumbnail": thumbnail + "&zoom=1"] }
        return info
    }

    static var googleNineteen84: [String: Any] { googleInfo(
        isbn: nineteen84ISBN, title: "1984", authors: ["George Orwell"], publisher: "Signet Classic",
        publishedDate: "1961-01-01", pageCount: 328, categories: ["Fiction"],
        description: "A dystopian novel about a totalitarian regime.",
        thumbnail: "http://books.google.com/books/content?id=kotPYEqx7kMC&printsec=frontcover&img=1") }
}

/// Routes for the test server that behave like the catalogues.
enum CatalogueRoutes {
    /// The ISBNs of an Open Library `/api/books?bibkeys=ISBN:a,ISBN:b` request.
    static func bibkeys(_ target: String) -> [String] {
        let query = TestHTTPServer.Request(method: "GET", target: target, userAgent: nil, arrival: .now).query
        return (query["bibkeys"] ?? "").split(separator: ",").map { String($0.replacingOccurrences(of: "ISBN:", with: "")) }
    }

    /// The ISBN of a Google `volumes?q=isbn:...` request.
    static func googleISBN(_ target: String) -> String? {
        let q = TestHTTPServer.Request(method: "GET", target: target, userAgent: nil, arrival: .now).query["q"] ?? ""
        return q.hasPrefix("isbn:") ? String(q.dropFirst(5)) : nil
    }

    static func isOpenLibraryBooks(_ target: String) -> Bool { target.hasPrefix("/api/books?") }
    static func isGoogleVolumes(_ target: String) -> Bool { target.hasPrefix("/books/v1/volumes?") }
    static func isCover(_ target: String) -> Bool { target.hasPrefix("/b/id/") }

    /// Open Library knows every ISBN ("Book <isbn>"); Google knows none; covers are 404.
    static func echo(coversURL: String? = nil) -> TestHTTPServer.Route {
        { _, target in
            if isOpenLibraryBooks(target) { return .json(CatalogueJSON.openLibraryEcho(isbns: bibkeys(target), coversURL: coversURL)) }
            if isGoogleVolumes(target) { return .json(CatalogueJSON.googleNone) }
            return .status(404)
        }
    }

    /// Open Library knows The Odyssey (covers on `coversURL`), Google knows 1984; nothing else.
    static func catalogue(coversURL: String, cover: TestHTTPServer.Behaviour = .status(404)) -> TestHTTPServer.Route {
        { _, target in
            if isOpenLibraryBooks(target) {
                return .json(bibkeys(target).contains(CatalogueJSON.odysseyISBN)
                             ? CatalogueJSON.openLibraryOdyssey(coversURL: coversURL) : CatalogueJSON.openLibraryEmpty)
            }
            if isGoogleVolumes(target) {
                return .json(googleISBN(target) == CatalogueJSON.nineteen84ISBN
                             ? CatalogueJSON.googleVolumes([CatalogueJSON.googleNineteen84]) : CatalogueJSON.googleNone)
            }
            if isCover(target) { return cover }
            return .status(404)
        }
    }
}

/// Builds clients and services pointed at test servers.
enum MetadataHarness {
    /// A limiter that spaces requests to `hosts` by only a few milliseconds.
    static func fastLimiter(_ servers: TestHTTPServer...) async -> HostRateLimiter {
        let limiter = HostRateLimiter()
        for server in servers { await limiter.setInterval(.milliseconds(5), for: server.host) }
        return limiter
    }

    static func fetcher(_ limiter: HostRateLimiter, timeout: Double = 30, userAgent: String = "shelfscan-tests/1") -> PoliteFetcher {
        var http = HTTPClient(userAgent: userAgent)
        http.totalTimeout = timeout
        var fetcher = PoliteFetcher(http: http, limiter: limiter)
        fetcher.backoff = .milliseconds(20)
        return fetcher
    }

    static func openLibrary(_ server: TestHTTPServer, timeout: Double = 30) async -> OpenLibraryClient {
        OpenLibraryClient(baseURL: server.baseURL, coversURL: server.baseURL,
                          fetcher: fetcher(await fastLimiter(server), timeout: timeout))
    }

    static func googleBooks(_ server: TestHTTPServer, timeout: Double = 30) async -> GoogleBooksClient {
        GoogleBooksClient(baseURL: server.baseURL + "/books/v1", apiKey: nil,
                          fetcher: fetcher(await fastLimiter(server), timeout: timeout))
    }

    /// Options with every catalogue (and the covers) on `server`.
    static func options(_ server: TestHTTPServer, timeout: Double = 30) -> MetadataOptions {
        var o = MetadataOptions()
        o.openLibraryURL = server.baseURL
        o.coversURL = server.baseURL
        o.googleBooksURL = server.baseURL + "/books/v1"
        o.timeout = timeout
        return o
    }

    /// A service whose limiter then lets requests to the test servers through every few ms (the
    /// production intervals are tested separately). Backoff stays at its default (500 ms).
    static func service(_ options: MetadataOptions, cache: LibraryDatabase?, servers: [TestHTTPServer]) async -> MetadataService {
        let limiter = HostRateLimiter()
        let service = await MetadataService(options: options, cache: cache, limiter: limiter)
        for server in servers { await limiter.setInterval(.milliseconds(5), for: server.host) }
        return service
    }

    /// The book of a `.found` outcome, else nil.
    static func found(_ outcome: LookupOutcome?) -> BookMetadata? {
        if case .found(let m)? = outcome { return m }
        return nil
    }

    static func isNotFound(_ outcome: LookupOutcome?) -> Bool {
        if case .notFound? = outcome { return true }
        return false
    }

    /// The reason of an `.unavailable` outcome, else nil.
    static func unavailable(_ outcome: LookupOutcome?) -> String? {
        if case .unavailable(let why)? = outcome { return why }
        return nil
    }
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
