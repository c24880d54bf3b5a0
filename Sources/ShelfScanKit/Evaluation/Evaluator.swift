import Foundation

/// Runs the scan pipeline over a labelled corpus and scores it.
public struct Evaluator: Sendable {
    public let directory: String
    public let scanner: ShelfScanner

    public init(directory: String, scanner: ShelfScanner) {
        self.directory = directory
        self.scanner = scanner
    }

    /// The outcome of an evaluation run.
    public struct Report: Codable, Sendable {
        public let directory: String
        public let images: [BarcodeImageScore]
        public let sets: [String: BarcodeTotals]
        public let total: BarcodeTotals
    }

    /// Scans every image in the truth file. `progress` is called after each image.
    public func run(progress: (@Sendable (Int, Int) -> Void)? = nil) async throws(ShelfScanError) -> Report {
        let truth = try TruthRecord.load(directory: directory)
        let paths = truth.map { directory + "/" + $0.image }
        var scores: [BarcodeImageScore] = []
        var index = 0
        for await result in scanner.scan(paths: paths) {
            scores.append(BarcodeImageScore(truth: truth[index], result: result))
            index += 1
            progress?(index, truth.count)
        }
        let grouped = Dictionary(grouping: scores, by: \.set).mapValues(BarcodeTotals.init)
        return Report(directory: directory, images: scores, sets: grouped, total: BarcodeTotals(scores))
    }
}

extension Evaluator.Report {
    /// A Markdown summary: per-set table, totals, and the images that went wrong.
    public var markdown: String {
        var out = "## Barcodes: \(directory)\n\n"
        out += "| set | images | main codes | add-ons | book ISBNs | misreads | false positives | errors | median ms | p95 ms |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        func row(_ name: String, _ t: BarcodeTotals) -> String {
            "| \(name) | \(t.images) | \(t.correctMain)/\(t.expectedMain) | \(t.correctAddOns)/\(t.expectedAddOns) | "
                + "\(t.correctISBNs)/\(t.expectedISBNs) | \(t.misreads) | \(t.falsePositives) | \(t.errors) | "
                + "\(String(format: "%.1f", t.medianMilliseconds)) | \(String(format: "%.1f", t.p95Milliseconds)) |\n"
        }
        for name in sets.keys.sorted() { out += row(name, sets[name]!) }
        out += row("**total**", total)
        let wrong = images.filter { !$0.misreads.isEmpty || $0.falsePositives > 0 }
        if !wrong.isEmpty {
            out += "\nWrong codes:\n"
            for s in wrong { out += "- \(s.image): reported \(s.misreads.joined(separator: ", ")) (expected \(s.expected.joined(separator: ", ")))\n" }
        }
        let failed = images.filter { $0.error != nil }
        if !failed.isEmpty {
            out += "\nUnreadable images:\n"
            for s in failed { out += "- \(s.error!)\n" }
        }
        return out
    }
}
