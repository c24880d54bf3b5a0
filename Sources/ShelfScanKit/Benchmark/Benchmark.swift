import Foundation

/// `shelfscan bench`: speed and memory of every stage, side by side with the tools people would
/// use instead (`zbarimg`, the `tesseract` CLI) on the same inputs in the same run.
///
/// In-process stages are timed around the library calls the scanner makes; whole-process figures
/// spawn `shelfscan` itself (`executable`) and the peers. Every figure is a median over `runs`
/// runs after one warm-up, with the spread (smallest and largest run).
public struct Benchmark: Sendable {
    public struct Options: Sendable {
        public var runs = 5
        /// The `shelfscan` executable, for whole-process, memory and import figures.
        public var executable: String
        /// The committed rendered corpus (`SampleImages`).
        public var sampleImages: String
        /// A 12-megapixel shelf photo (`scripts/make-sample-images.py --big-shelf`), when given.
        public var bigShelf: String?
        /// `../shared/corpora`, when present: catalogues for the 100k-book library.
        public var sharedCorpora: String?
        public var tessdata: String?
        /// A scratch folder (created, and removed afterwards).
        public var scratch: String
        /// Skip the peers (when zbarimg or tesseract are not installed).
        public var peers = true

        public init(executable: String, sampleImages: String, scratch: String) {
            self.executable = executable
            self.sampleImages = sampleImages
            self.scratch = scratch
        }
    }

    /// One measured figure.
    public struct Row: Encodable, Sendable {
        public var section: String
        public var measure: String
        /// How many inputs the median covers.
        public var inputs: Int
        public var median: Double
        public var low: Double
        public var high: Double
        public var unit: String
        public var peer: String?
        public var peerMedian: Double?
        /// shelfscan / peer (time): below 1, shelfscan is faster.
        public var ratio: Double?
        public var target: String?

        init(section: String, measure: String, inputs: Int, median: Double, low: Double, high: Double, unit: String,
             peer: String? = nil, peerMedian: Double? = nil, target: String? = nil) {
            (self.section, self.measure, self.inputs) = (section, measure, inputs)
            (self.median, self.low, self.high, self.unit) = (median, low, high, unit)
            (self.peer, self.peerMedian, self.target) = (peer, peerMedian, target)
            ratio = peerMedian.flatMap { $0 > 0 ? median / $0 : nil }
        }
    }

    public struct Report: Encodable, Sendable {
        public var machine: String
        public var cores: Int
        public var runs: Int
        public var rows: [Row]
        public var notes: [String]

        public var markdown: String {
            var out = "Machine: \(machine), \(cores) cores; release build; median of \(runs) runs after a warm-up, spread = fastest..slowest run.\n"
            var section = ""
            for row in rows {
                if row.section != section {
                    section = row.section
                    out += "\n### \(section)\n\n| measure | inputs | shelfscan | spread | peer | peer median | ratio | target |\n|---|---:|---:|---:|---|---:|---:|---|\n"
                }
                let ratio = row.ratio.map { String(format: "%.2f", $0) } ?? ""
                out += "| \(row.measure) | \(row.inputs) | \(Self.format(row.median, row.unit)) | \(Self.format(row.low, row.unit))..\(Self.format(row.high, row.unit)) | \(row.peer ?? "") | \(row.peerMedian.map { Self.format($0, row.unit) } ?? "") | \(ratio) | \(row.target ?? "") |\n"
            }
            if !notes.isEmpty { out += "\n" + notes.map { "- \($0)" }.joined(separator: "\n") + "\n" }
            return out
        }

        static func format(_ value: Double, _ unit: String) -> String {
            switch unit {
            case "ms": value >= 100 ? String(format: "%.0f ms", value) : String(format: "%.1f ms", value)
            case "µs": String(format: "%.1f µs", value)
            case "MB": String(format: "%.0f MB", value)
            case "fps", "photos/s": String(format: "%.0f %@", value, unit)
            default: String(format: "%.1f %@", value, unit)
            }
        }
    }

    public let options: Options
    private var log: @Sendable (String) -> Void

    public init(options: Options, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.options = options
        self.log = log
    }

    // MARK: Running

    public func run() throws(ShelfScanError) -> Report {
        try? FileManager.default.createDirectory(atPath: options.scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: options.scratch) }
        var rows: [Row] = []
        var notes: [String] = []
        let corpusLibraryPath = options.scratch + "/corpus.sqlite"
        // The corpus's labelled books, in a library file the child processes can open too.
        do {
            let library = try LibraryDatabase.open(path: corpusLibraryPath)
            let corpus = try Evaluator.corpusLibrary(directory: options.sampleImages)
            _ = try library.addUnlessPresent(try corpus.list())
        }
        // Memory first: getrusage(RUSAGE_CHILDREN) keeps the largest child so far.
        if let big = options.bigShelf {
            log("memory: 12 MP shelf")
            let run = try Self.spawn(options.executable, [big, "--library", corpusLibraryPath, "--format", "json"])
            rows.append(Row(section: "Memory", measure: "peak resident memory, whole scan of the 12 MP shelf", inputs: 1,
                            median: run.maxRSSMegabytes, low: run.maxRSSMegabytes, high: run.maxRSSMegabytes, unit: "MB", target: "< 400 MB"))
        }
        rows += try decodeRows()
        rows += try barcodeRows()
        let scanner = ShelfScanner(options: scanOptions, library: try LibraryDatabase.open(path: corpusLibraryPath))
        rows += try textRows(scanner: scanner, notes: &notes)
        rows += try matchingRows(notes: &notes)
        rows += try importRows()
        rows += try streamRows()
        return Report(machine: Self.machine(), cores: ProcessInfo.processInfo.activeProcessorCount,
                      runs: options.runs, rows: rows, notes: notes)
    }

    var scanOptions: ScanOptions {
        var o = ScanOptions()
        o.tessdata = options.tessdata
        return o
    }

    /// Milliseconds of each of `runs` runs after one warm-up.
    func time(runs: Int? = nil, _ body: () throws(ShelfScanError) -> Void) throws(ShelfScanError) -> [Double] {
        try body()
        var out: [Double] = []
        for _ in 0..<(runs ?? options.runs) {
            let start = ContinuousClock.now
            try body()
            out.append(start.millisecondsElapsed)
        }
        return out
    }

    static func row(_ section: String, _ measure: String, inputs: Int, _ values: [Double], unit: String = "ms",
                    peer: String? = nil, peerValues: [Double]? = nil, target: String? = nil) -> Row {
        let sorted = values.sorted()
        return Row(section: section, measure: measure, inputs: inputs, median: Percentile.of(sorted, 0.5),
                   low: sorted.first ?? 0, high: sorted.last ?? 0, unit: unit, peer: peer,
                   peerMedian: peerValues.map { Percentile.of($0.sorted(), 0.5) }, target: target)
    }

    // MARK: Decode

    func decodeRows() throws(ShelfScanError) -> [Row] {
        log("decode")
        var sources: [(String, PixImage)] = []
        if let shelf = firstSample(in: "shelves") { sources.append(("", try ImageLoader().load(path: shelf).image)) }
        if let big = options.bigShelf { sources.append(("", try ImageLoader().load(path: big).image)) }
        var rows: [Row] = []
        for (_, image) in sources {
            for format in [ImageFormat.jpeg, .png, .tiff, .webp, .pnm] {
                let path = "\(options.scratch)/decode.\(format)"
                guard (try? image.write(to: path, format: format)) != nil else { continue }
                let values = try time { () throws(ShelfScanError) in _ = try ImageLoader().load(path: path) }
                rows.append(Self.row("Image decode", "\(format) \(image.width)x\(image.height)", inputs: 1, values))
            }
        }
        return rows
    }

    // MARK: Barcodes

    func barcodeRows() throws(ShelfScanError) -> [Row] {
        log("barcodes")
        let reader = BarcodeReader()
        // 1280x720 back covers whose barcode shelfscan reads.
        var hits: [(String, PixImage)] = []
        for path in samples(in: "barcodes") {
            let image = try ImageLoader().load(path: path).image
            guard image.width == 1280, image.height == 720, !(try reader.read(image).barcodes.isEmpty) else { continue }
            hits.append((path, image))
        }
        var rows: [Row] = []
        if !hits.isEmpty {
            let perImage = try hits.map { (_, image) throws(ShelfScanError) -> Double in
                Percentile.of(try time { () throws(ShelfScanError) in _ = try reader.read(image) }.sorted(), 0.5)
            }
            rows.append(Self.row("Barcodes", "barcode stage, 1280x720 with a barcode (hit)", inputs: hits.count, perImage, target: "< 15 ms"))
            let files = hits.prefix(8).map(\.0)
            let ours = try files.map { (f: String) throws(ShelfScanError) -> Double in
                Percentile.of(try time { () throws(ShelfScanError) in _ = try Self.spawn(options.executable, ["--mode", "barcode", "--format", "json", "--library", "/nonexistent/none.sqlite", f]) }.sorted(), 0.5)
            }
            let theirs = options.peers ? try files.map { (f: String) throws(ShelfScanError) -> Double in
                Percentile.of(try time { () throws(ShelfScanError) in _ = try Self.spawn("zbarimg", ["-q", f]) }.sorted(), 0.5)
            } : nil
            rows.append(Self.row("Barcodes", "whole process, 1280x720 with a barcode", inputs: files.count, ours,
                                 peer: theirs == nil ? nil : "zbarimg", peerValues: theirs))
        }
        var misses: [(String, String)] = []
        if let shelf = firstSample(in: "shelves") { misses.append(("photo without a barcode", shelf)) }
        if let big = options.bigShelf { misses.append(("12 MP photo without a barcode", big)) }
        for (label, path) in misses {
            let image = try ImageLoader().load(path: path).image
            let values = try time { () throws(ShelfScanError) in _ = try reader.read(image) }
            rows.append(Self.row("Barcodes", "barcode stage, \(label) (all retries, \(image.width)x\(image.height))", inputs: 1, values))
            let ours = try time { () throws(ShelfScanError) in _ = try Self.spawn(options.executable, ["--mode", "barcode", "--format", "json", "--library", "/nonexistent/none.sqlite", path]) }
            let theirs = options.peers ? try time { () throws(ShelfScanError) in _ = try Self.spawn("zbarimg", ["-q", path]) } : nil
            rows.append(Self.row("Barcodes", "whole process, \(label)", inputs: 1, ours,
                                 peer: theirs == nil ? nil : "zbarimg", peerValues: theirs))
        }
        return rows
    }

    // MARK: Regions, OCR, whole scans

    func textRows(scanner: ShelfScanner, notes: inout [String]) throws(ShelfScanError) -> [Row] {
        log("regions and OCR")
        var rows: [Row] = []
        let finder = SpineFinder()
        var shelves: [(String, LoadedImage)] = try samples(in: "shelves").prefix(4).map { p throws(ShelfScanError) in (p, try ImageLoader().load(path: p)) }
        if let big = options.bigShelf { shelves.append((big, try ImageLoader().load(path: big))) }
        for (_, loaded) in shelves {
            let image = loaded.image
            var regionCount = 0
            let values = try time { () throws(ShelfScanError) in regionCount = try finder.spines(in: image).regions.count }
            rows.append(Self.row("Text regions", "spine finder, \(image.width)x\(image.height) (\(regionCount) regions)", inputs: 1, values))
        }
        // OCR of the same crops: one engine here, the tesseract CLI on a list of the crop files.
        if let (_, loaded) = shelves.last {
            let regions = try finder.spines(in: loaded.image).regions.prefix(30)
            var crops: [PixImage] = []
            for region in regions { crops += try RegionReader().crops(for: region, in: loaded.image) }
            let engine = try TesseractEngine(tessdata: try ModelLocator.tessdata(explicit: options.tessdata))
            let ours = try time(runs: min(options.runs, 3)) { () throws(ShelfScanError) in
                for crop in crops { _ = try engine.recognize(crop, layout: .block) }
            }.map { $0 / Double(crops.count) }
            var theirs: [Double]?
            if options.peers {
                var list: [String] = []
                for (i, crop) in crops.enumerated() {
                    let path = "\(options.scratch)/crop-\(i).png"
                    try crop.writePNG(to: path)
                    list.append(path)
                }
                try? (list.joined(separator: "\n") + "\n").write(toFile: options.scratch + "/crops.txt", atomically: true, encoding: .utf8)
                let model = try ModelLocator.tessdata(explicit: options.tessdata)
                theirs = try time(runs: min(options.runs, 3)) { () throws(ShelfScanError) in
                    _ = try Self.spawn("tesseract", [options.scratch + "/crops.txt", "stdout", "--psm", "6", "--tessdata-dir", model, "-l", "eng"])
                }.map { $0 / Double(crops.count) }
            }
            rows.append(Self.row("OCR", "one recognition of a spine crop (\(crops.count) crops of \(regions.count) regions, one engine)", inputs: crops.count, ours,
                                 peer: theirs == nil ? nil : "tesseract CLI, same crops, one process", peerValues: theirs))
        }
        // Whole photos through the scanner (library: the corpus's labelled books).
        log("whole scans")
        var photos: [(String, String)] = []
        if let p = firstSample(in: "barcodes") { photos.append(("back cover with a barcode", p)) }
        if let p = firstSample(in: "covers") { photos.append(("front cover", p)) }
        for p in samples(in: "shelves").prefix(2) { photos.append(("shelf", p)) }
        if let big = options.bigShelf { photos.append(("12 MP shelf", big)) }
        for (label, path) in photos {
            let loaded = try ImageLoader().load(path: path)
            var result: ImageResult?
            let isBig = path == options.bigShelf
            let values = try time(runs: isBig ? min(options.runs, 3) : nil) { () throws(ShelfScanError) in result = scanner.scan(loaded) }
            let ocrShare = result.map { "regions \(Int($0.timings.regions)) ms, OCR \(Int($0.timings.ocr)) ms, \($0.books.count) books" } ?? ""
            var peerValues: [Double]?
            var peer: String?
            if options.peers, label != "back cover with a barcode" {
                peer = "tesseract CLI (whole photo, auto layout)"
                peerValues = try time(runs: isBig ? 1 : min(options.runs, 3)) { () throws(ShelfScanError) in
                    _ = try Self.spawn("tesseract", [path, "stdout", "--tessdata-dir", try ModelLocator.tessdata(explicit: options.tessdata), "-l", "eng"])
                }
            }
            rows.append(Self.row("Whole photo", "\(label), \(loaded.image.width)x\(loaded.image.height) (\(ocrShare))", inputs: 1, values,
                                 peer: peer, peerValues: peerValues, target: isBig ? "< 3000 ms" : nil))
        }
        // Scaling with image size: the 12 MP shelf at a quarter and half its area.
        if let big = options.bigShelf {
            let loaded = try ImageLoader().load(path: big)
            for fraction in [0.25, 0.5] {
                let smaller = LoadedImage(name: big, format: loaded.format, orientation: nil,
                                          image: try loaded.image.scaled(by: fraction.squareRoot()))
                var result: ImageResult?
                let values = try time(runs: min(options.runs, 3)) { () throws(ShelfScanError) in result = scanner.scan(smaller) }
                rows.append(Self.row("Scaling: image size", "12 MP shelf scaled to \(smaller.image.width)x\(smaller.image.height) (\(result?.regions.count ?? 0) regions, \(result?.books.count ?? 0) books)",
                                     inputs: 1, values))
            }
        }
        notes.append("The tesseract CLI peer on whole photos uses its automatic layout (no spine finding, no rotation): it is the tool a user would run, not the same work.")
        return rows
    }

    // MARK: Matching

    func matchingRows(notes: inout [String]) throws(ShelfScanError) -> [Row] {
        log("matching")
        var real = try Evaluator.corpusLibrary(directory: options.sampleImages).list()
        if let shared = options.sharedCorpora {
            let folder = shared + "/catalog"
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".csv") }.sorted()
            real += try MatchBenchmark.books(catalogFiles: files.map { folder + "/" + $0 })
        }
        var rows: [Row] = []
        for size in [1_000, 10_000, 100_000] {
            let r = MatchBenchmark.run(real: real, total: size, queries: 500)
            rows.append(Self.row("Matching", "index build, \(size) books", inputs: 1, [r.indexSeconds * 1000]))
            rows.append(Row(section: "Matching", measure: "one spine against \(size) books (\(r.rankedFirst) of \(r.queries) ranked their own book first)",
                            inputs: r.queries, median: r.medianMilliseconds * 1000, low: r.medianMilliseconds * 1000,
                            high: r.p90Milliseconds * 1000, unit: "µs", target: size == 100_000 ? "< 1000 µs" : nil))
        }
        notes.append("Matching: the corpus's books and the catalogues in ../shared/corpora/catalog (when present), cut or padded with seeded synthetic titles made of their words to each size; 500 damaged spines (upper case, a letter dropped, the author line) of real books; spread is median..90th percentile over the spines. The same code as `shelfscan catalog bench`.")
        return rows
    }

    // MARK: Import

    func importRows() throws(ShelfScanError) -> [Row] {
        log("import")
        let photos = samples(in: "barcodes")
        guard !photos.isEmpty else { return [] }
        let folder = options.scratch + "/import"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let count = 200
        for i in 0..<count {
            let source = photos[i % photos.count]
            guard var data = FileManager.default.contents(atPath: source) else { continue }
            data.append(contentsOf: [UInt8](repeating: 0, count: i / photos.count))  // every file new to the import
            _ = FileManager.default.createFile(atPath: "\(folder)/\(i).\((source as NSString).pathExtension)", contents: data)
        }
        var values: [Double] = []
        for run in 0..<max(1, min(options.runs, 3)) {
            let start = ContinuousClock.now
            _ = try Self.spawn(options.executable, ["import", folder, "--offline", "--library", "\(options.scratch)/import-\(run).sqlite"])
            values.append(Double(count) / (start.millisecondsElapsed / 1000))
        }
        return [Self.row("Import", "shelfscan import of \(count) barcode photos, offline", inputs: count, values, unit: "photos/s", target: "> 40 photos/s")]
    }

    // MARK: Stream

    /// `shelfscan stream --all-frames --no-ocr` on MJPEG made by ffmpeg from a back cover at
    /// 640x480 and 1280x720 (every frame processed: what the barcode path sustains). The frames
    /// per second come from the stream's own closing `stats` event.
    func streamRows() throws(ShelfScanError) -> [Row] {
        guard options.peers, let cover = samples(in: "barcodes").first(where: { $0.contains("isbn") }) else { return [] }
        log("stream")
        var rows: [Row] = []
        for (w, h, target) in [(640, 480, "> 60 fps"), (1280, 720, "> 30 fps")] {
            let file = "\(options.scratch)/stream-\(w).mjpeg"
            _ = try Self.spawn("ffmpeg", ["-loglevel", "error", "-y", "-loop", "1", "-i", cover, "-frames:v", "300",
                                          "-vf", "scale=\(w):\(h)", "-f", "image2pipe", "-c:v", "mjpeg", file])
            guard FileManager.default.fileExists(atPath: file) else { continue }
            var values: [Double] = []
            for _ in 0..<max(1, min(options.runs, 3)) {
                guard let fps = try Self.streamFPS(executable: options.executable, input: file) else { continue }
                values.append(fps)
            }
            if !values.isEmpty {
                rows.append(Self.row("Stream", "shelfscan stream --all-frames --no-ocr, \(w)x\(h) MJPEG, 300 frames with a barcode",
                                     inputs: 300, values, unit: "fps", target: target))
            }
        }
        return rows
    }

    /// Runs `shelfscan stream` on a file and returns the `fps` of its `stats` event.
    static func streamFPS(executable: String, input: String) throws(ShelfScanError) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["stream", "--all-frames", "--no-ocr", "--format", "jsonl"]
        guard let handle = FileHandle(forReadingAtPath: input) else { return nil }
        process.standardInput = handle
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw ShelfScanError(.invalidArgument, "\(executable): cannot run it (\(error.localizedDescription))")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "stats" else { continue }
            return object["fps"] as? Double
        }
        return nil
    }

    // MARK: Helpers

    func samples(in set: String) -> [String] {
        let folder = options.sampleImages + "/" + set
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }.map { folder + "/" + $0 }
    }

    func firstSample(in set: String) -> String? { samples(in: set).first }

    struct ChildRun { var status: Int32; var maxRSSMegabytes: Double }

    /// Runs a program to completion, output discarded; the largest resident size of any child so far.
    static func spawn(_ program: String, _ arguments: [String]) throws(ShelfScanError) -> ChildRun {
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["OMP_THREAD_LIMIT"] = "1"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw ShelfScanError(.invalidArgument, "\(program): cannot run it (\(error.localizedDescription)); install it or pass --no-peers")
        }
        process.waitUntilExit()
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return ChildRun(status: process.terminationStatus, maxRSSMegabytes: Double(usage.ru_maxrss) / 1024)
    }

    static func machine() -> String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = info.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
        return model ?? "unknown CPU"
    }
}
