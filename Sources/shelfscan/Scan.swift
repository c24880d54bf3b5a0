import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan [scan] photo.jpg ...`: the books in each photo, best first, with their evidence.
struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan photos for books (the default command).")

    @Argument(help: ArgumentHelp("Image files (JPEG, PNG, TIFF, WebP, GIF, PNM).", valueName: "image"))
    var images: [String]

    @Option(name: .shortAndLong, help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table

    @OptionGroup var library: LibraryOptions

    @Flag(name: .long, help: "Only the first barcode pass (faster, finds less).")
    var noRetries = false

    @Flag(name: .long, help: .hidden)
    var allPasses = false

    @Option(name: [.customShort("j"), .long], help: "Images scanned at once (default: one per core).")
    var jobs: Int?

    func validate() throws {
        if images.isEmpty { throw ValidationError("give at least one image file, e.g. `shelfscan photo.jpg`") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() async throws {
        var options = ScanOptions()
        options.barcodes.retries = !noRetries
        options.barcodes.exhaustive = allPasses
        if let jobs { options.concurrency = jobs }
        let scanner = ShelfScanner(options: options, library: try library.openIfPresent())
        let renderer = format.renderer()
        StandardOutput.write(renderer.header())
        var failures = 0
        var first = true
        for await result in scanner.scan(paths: images) {
            if let error = result.error {
                failures += 1
                // The table shows the error inline; machine formats carry it in the record.
                if format != .table || !StandardError.isTerminal { StandardError.line("shelfscan: error: \(error.message)") }
            }
            StandardOutput.write(renderer.render(result, isFirst: first))
            first = false
        }
        StandardOutput.write(renderer.footer())
        if failures > 0 {
            StandardError.line("shelfscan: \(failures) of \(images.count) image\(images.count == 1 ? "" : "s") could not be scanned")
            throw ExitCode.failure
        }
    }
}
