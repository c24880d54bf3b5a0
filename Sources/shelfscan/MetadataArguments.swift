import ArgumentParser
import Foundation
import ShelfScanKit

/// Flags for catalogue lookups, shared by every command that may look books up.
/// Each overrides its environment variable (see `MetadataOptions.fromEnvironment`).
struct MetadataArguments: ParsableArguments {
    @Flag(help: "No network: only the cache and the library (env SHELFSCAN_OFFLINE=1).")
    var offline = false

    @Option(help: ArgumentHelp("Your e-mail or URL, sent to the catalogues (env SHELFSCAN_CONTACT). Open Library allows 3 requests/s with one, 1/s without.", valueName: "contact"))
    var contact: String?

    @Option(help: ArgumentHelp("Google Books API key (env GOOGLE_BOOKS_API_KEY).", valueName: "key"))
    var googleKey: String?

    @Option(help: ArgumentHelp("Catalogues to ask, in order (default openlibrary,googlebooks).", valueName: "list"))
    var sources: String?

    @Option(help: ArgumentHelp("Open Library base URL, for mirrors and tests (env SHELFSCAN_OPENLIBRARY_URL).", valueName: "url"))
    var openlibraryUrl: String?

    @Option(help: ArgumentHelp("Open Library covers base URL (env SHELFSCAN_COVERS_URL).", valueName: "url"))
    var coversUrl: String?

    @Option(help: ArgumentHelp("Google Books API base URL (env SHELFSCAN_GOOGLEBOOKS_URL).", valueName: "url"))
    var googlebooksUrl: String?

    func validate() throws {
        _ = try parsedSources()
    }

    func parsedSources() throws -> [MetadataSource]? {
        guard let sources else { return nil }
        return try sources.split(separator: ",").map {
            let name = $0.trimmingCharacters(in: .whitespaces)
            guard let source = MetadataSource(rawValue: name) else {
                throw ValidationError("--sources: unknown catalogue '\(name)'; use openlibrary and/or googlebooks")
            }
            return source
        }
    }

    var options: MetadataOptions {
        var o = MetadataOptions.fromEnvironment()
        if offline { o.offline = true }
        if let contact { o.contact = contact }
        if let googleKey { o.googleAPIKey = googleKey }
        if let list = try? parsedSources() { o.sources = list }
        if let openlibraryUrl { o.openLibraryURL = openlibraryUrl }
        if let coversUrl { o.coversURL = coversUrl }
        if let googlebooksUrl { o.googleBooksURL = googlebooksUrl }
        return o
    }
}

extension LibraryOptions {
    /// The folder covers are saved in: `Covers/` beside the library file.
    var coversFolder: String { (path as NSString).deletingLastPathComponent + "/Covers" }
}

/// Prints what `LibraryEnricher.add` did.
enum AddReport {
    static func line(_ added: LibraryEnricher.Added) -> String {
        switch added {
        case .described(let b): return "added #\(b.id ?? 0): \(BookText.line(b))"
        case .unknown(let b): return "added #\(b.id ?? 0): ISBN \(b.isbn13 ?? "?") (no catalogue knows it; give --title and --author)"
        case .queued(let b, let why): return "added #\(b.id ?? 0): ISBN \(b.isbn13 ?? "?") by ISBN only, queued for `shelfscan enrich` (\(why))"
        case .alreadyPresent(let b): return "already in the library: #\(b.id ?? 0) \(BookText.line(b))"
        }
    }
}
