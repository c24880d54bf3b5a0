import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan`: finds books in photos.
struct Shelfscan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shelfscan",
        abstract: "Find books in photos of shelves, covers and barcodes.",
        discussion: """
            With image files and no subcommand, scans them: `shelfscan photo.jpg more.png`.
            The library is at $XDG_DATA_HOME/shelfscan/library.sqlite (or ~/.local/share/...) unless --library says otherwise.
            """,
        version: ShelfScanVersion.current,
        subcommands: [Scan.self, Stream.self, Import.self, LibraryCommand.self, CatalogCommand.self, Lookup.self, Enrich.self, Eval.self, OCR.self, Bench.self],
        defaultSubcommand: Scan.self
    )
}

/// `--library PATH`, shared by every command that touches the library.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The library file.", valueName: "path"))
    var library: String?

    var path: String { library ?? LibraryDatabase.defaultPath() }

    /// Opens the library, creating it if needed.
    func open() throws -> LibraryDatabase {
        do { return try LibraryDatabase.open(path: path) } catch { throw CLIError(error.message) }
    }

    /// Opens the library if it exists; scanning never creates one.
    func openIfPresent() throws -> LibraryDatabase? {
        FileManager.default.fileExists(atPath: path) ? try open() : nil
    }
}

/// A one-line error printed as `shelfscan: error: <message>` with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
    /// A ShelfScanError's own message; anything else as Swift describes it.
    init(describing error: any Error) { description = (error as? ShelfScanError)?.message ?? "\(error)" }
}

extension OutputFormat: ExpressibleByArgument {}
extension ReadingStatus: ExpressibleByArgument {}

/// Standard error, unbuffered, for messages and progress.
enum StandardError {
    static func line(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static var isTerminal: Bool { isatty(2) == 1 }
}

/// Standard output, written in chunks as results arrive.
enum StandardOutput {
    static func write(_ text: String) {
        guard !text.isEmpty else { return }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
