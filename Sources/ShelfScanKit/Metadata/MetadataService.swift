import Foundation

/// Settings for catalogue lookups.
public struct MetadataOptions: Sendable {
    /// Use only the cache and local data: no network at all.
    public var offline = false
    /// Catalogues asked, in priority order. Google Books is asked for an ISBN only when Open
    /// Library does not know it (1,000 requests a day without a key).
    public var sources: [MetadataSource] = [.openlibrary, .googlebooks]
    /// An e-mail or URL sent in the User-Agent. Open Library allows 3 requests/s with one, 1/s without.
    public var contact: String?
    public var googleAPIKey: String?
    public var openLibraryURL = "https://openlibrary.org"
    public var coversURL = "https://covers.openlibrary.org"
    public var googleBooksURL = "https://www.googleapis.com/books/v1"
    /// How long answers are kept: found books long, misses short (a catalogue may add the book).
    public var hitLifetime: TimeInterval = 180 * 86_400
    public var missLifetime: TimeInterval = 7 * 86_400
    /// Seconds for a whole HTTP exchange.
    public var timeout: Double = 20
    /// The time cache entries are stored and checked at (tests move it by hand).
    public var now: @Sendable () -> Date = { Date() }

    public init() {}

    /// Options from the environment: `SHELFSCAN_OFFLINE=1`, `SHELFSCAN_CONTACT`,
    /// `GOOGLE_BOOKS_API_KEY`, `SHELFSCAN_OPENLIBRARY_URL`, `SHELFSCAN_COVERS_URL`, `SHELFSCAN_GOOGLEBOOKS_URL`.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> MetadataOptions {
        var o = MetadataOptions()
        if let v = env["SHELFSCAN_OFFLINE"], !v.isEmpty, v != "0" { o.offline = true }
        o.contact = env["SHELFSCAN_CONTACT"].flatMap { $0.isEmpty ? nil : $0 }
        o.googleAPIKey = env["GOOGLE_BOOKS_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let v = env["SHELFSCAN_OPENLIBRARY_URL"], !v.isEmpty { o.openLibraryURL = v }
        if let v = env["SHELFSCAN_COVERS_URL"], !v.isEmpty { o.coversURL = v }
        if let v = env["SHELFSCAN_GOOGLEBOOKS_URL"], !v.isEmpty { o.googleBooksURL = v }
        return o
    }

    /// The User-Agent: names shelfscan and, when given, how to reach its user.
    public var userAgent: String {
        "shelfscan/\(ShelfScanVersion.current) (\(contact.map { "contact: \($0)" } ?? "no contact given; set SHELFSCAN_CONTACT"))"
    }
}

/// The version, for the User-Agent and `--version`.
public enum ShelfScanVersion {
    public static let current = "0.1.0"
}

/// What a lookup came to.
public enum LookupOutcome: Sendable {
    case found(BookMetadata)
    /// Every catalogue asked answered that it does not know the book.
    case notFound
    /// No answer: offline without a cached one, or the network failed (the reason).
    case unavailable(String)
}

/// Catalogue lookups with a cache in the library database: a repeated lookup costs no network.
public struct MetadataService: Sendable {
    public let options: MetadataOptions
    /// Where answers are cached; nil: no cache.
    public let cache: LibraryDatabase?
    let openLibrary: OpenLibraryClient
    let googleBooks: GoogleBooksClient
    /// The shared, rate-limited fetcher (covers go through it too).
    let fetcher: PoliteFetcher

    public init(options: MetadataOptions, cache: LibraryDatabase?, limiter: HostRateLimiter = HostRateLimiter()) async {
        self.options = options
        self.cache = cache
        var http = HTTPClient(userAgent: options.userAgent)
        http.totalTimeout = options.timeout
        fetcher = PoliteFetcher(http: http, limiter: limiter)
        openLibrary = OpenLibraryClient(baseURL: options.openLibraryURL, coversURL: options.coversURL, fetcher: fetcher)
        googleBooks = GoogleBooksClient(baseURL: options.googleBooksURL, apiKey: options.googleAPIKey, fetcher: fetcher)
        await limiter.tighten(options.contact == nil ? .seconds(1) : .milliseconds(334), for: HTTPClient.host(options.openLibraryURL))
        await limiter.tighten(.seconds(1), for: HTTPClient.host(options.googleBooksURL))
        await limiter.tighten(.milliseconds(334), for: HTTPClient.host(options.coversURL))
    }

    /// Looks up ISBN-13s: the cache first, then (unless offline) the catalogues in priority order.
    public func lookup(isbns: [String]) async -> [String: LookupOutcome] {
        let wanted = Array(Set(isbns.compactMap { ISBN($0)?.isbn13 })).sorted()
        var answers: [String: [BookMetadata]] = [:]  // found records per ISBN, in source order
        var failures: [String: String] = [:]
        var asked: [String: Int] = [:]  // sources that answered (found or not) per ISBN
        for source in options.sources {
            // Google is the fallback: only for ISBNs no earlier source knows.
            let pending = source == .googlebooks ? wanted.filter { (answers[$0] ?? []).isEmpty } : wanted
            var uncached: [String] = []
            let cachedAnswers = (try? cache?.cachedLookups(pending.map { "\(source.rawValue)|isbn|\($0)" }, now: options.now())) ?? [:]
            for isbn in pending {
                if let cached = cachedAnswers["\(source.rawValue)|isbn|\(isbn)"] {
                    asked[isbn, default: 0] += 1
                    if let record = cached.first { answers[isbn, default: []].append(record) }
                } else {
                    uncached.append(isbn)
                }
            }
            guard !uncached.isEmpty else { continue }
            guard !options.offline else {
                for isbn in uncached { failures[isbn] = failures[isbn] ?? "offline, and no cached answer" }
                continue
            }
            let (fetched, failed) = await fetch(source: source, isbns: uncached)
            for isbn in uncached {
                // Nothing is cached for a failure: the next run asks again.
                if let failure = failed[isbn] {
                    failures[isbn] = failure
                    continue
                }
                asked[isbn, default: 0] += 1
                let record = fetched[isbn]
                store(source: source, key: "isbn|\(isbn)", record.map { [$0] } ?? [], found: record != nil)
                if let record { answers[isbn, default: []].append(record) }
            }
        }
        var outcomes: [String: LookupOutcome] = [:]
        for isbn in wanted {
            if let merged = MetadataMerge.combine(answers[isbn] ?? []) {
                outcomes[isbn] = .found(merged)
            } else if let failure = failures[isbn] {
                outcomes[isbn] = .unavailable(failure)
            } else {
                outcomes[isbn] = asked[isbn, default: 0] > 0 ? .notFound : .unavailable("no catalogue asked")
            }
        }
        return outcomes
    }

    /// Title/author search in every source, cached; each source's results in its own order.
    public func search(title: String, author: String?) async -> Result<[BookMetadata], ShelfScanError> {
        let key = "search|\(Self.normalise(title))|\(Self.normalise(author ?? ""))"
        var results: [BookMetadata] = []
        var failure: ShelfScanError?
        for source in options.sources {
            if let cached = try? cache?.cachedLookup("\(source.rawValue)|\(key)", now: options.now()) {
                results += cached
                continue
            }
            guard !options.offline else {
                failure = ShelfScanError(.network, "offline, and no cached answer for \"\(title)\"")
                continue
            }
            do throws(ShelfScanError) {
                let found = source == .openlibrary
                    ? try await openLibrary.search(title: title, author: author)
                    : try await googleBooks.search(title: title, author: author)
                store(source: source, key: key, found, found: !found.isEmpty)
                results += found
            } catch {
                failure = error
            }
        }
        if results.isEmpty, let failure { return .failure(failure) }
        return .success(results)
    }

    /// Answers per ISBN, and failures per ISBN: one failed request never discards the answers
    /// already received.
    private func fetch(source: MetadataSource, isbns: [String]) async -> ([String: BookMetadata], [String: String]) {
        switch source {
        case .openlibrary:
            do throws(ShelfScanError) {
                return (try await openLibrary.books(isbns: isbns), [:])
            } catch {
                return ([:], Dictionary(uniqueKeysWithValues: isbns.map { ($0, error.message) }))
            }
        case .googlebooks:
            var found: [String: BookMetadata] = [:], failed: [String: String] = [:]
            for isbn in isbns {
                do throws(ShelfScanError) {
                    if let book = try await googleBooks.book(isbn13: isbn) { found[isbn] = book }
                } catch {
                    failed[isbn] = error.message
                    // A quota or an outage will not end in the next second: stop asking.
                    if error.code == .rateLimited || error.code == .network {
                        for rest in isbns where found[rest] == nil && failed[rest] == nil { failed[rest] = error.message }
                        break
                    }
                }
            }
            return (found, failed)
        }
    }

    private func store(source: MetadataSource, key: String, _ records: [BookMetadata], found: Bool) {
        try? cache?.storeLookup("\(source.rawValue)|\(key)", records, lifetime: found ? options.hitLifetime : options.missLifetime, now: options.now())
    }

    /// Lower case, no diacritics, punctuation as single spaces: "L'Étranger " -> "l etranger".
    static func normalise(_ s: String) -> String {
        let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX")).lowercased()
        return folded.map { $0.isLetter || $0.isNumber ? String($0) : " " }.joined()
            .split(separator: " ").joined(separator: " ")
    }
}
