/// The result model every renderer draws from: one `ImageResult` per input image.
public struct ImageResult: Codable, Sendable {
    /// The path (or name) of the image, as given.
    public let image: String
    /// Upright size in pixels (0 when the image could not be read).
    public let width: Int
    public let height: Int
    /// Container format, and the EXIF orientation that was applied (nil when none).
    public let format: ImageFormat?
    public let orientation: ExifOrientation?
    /// Books found, best first.
    public var books: [BookEntity]
    /// Every verified barcode, books and not books, in reading order.
    public let barcodes: [Barcode]
    /// Confident text that reads like a title but matched no known book.
    public var unidentified: [UnidentifiedText] = []
    /// Why the image could not be scanned, if it could not.
    public let error: ScanFailure?
    /// Where the time went, in milliseconds.
    public var timings: StageTimings
    /// Why some catalogue lookups got no answer (offline without cache, network failures).
    /// Not part of the JSON: the command line reports them once per run.
    public var lookupProblems: [String] = []
    /// Regions searched for text (spines, lying spines, a cover): with the books' evidence
    /// regions, which were identified and which not.
    public var regions: [BoundingBox] = []
    /// The outline of each of `regions`, in order, where it leans (`TextRegion.outline`): the
    /// picture of the findings draws the spine itself, not the upright box around it and its
    /// neighbours' slivers. nil for an upright region. Not in the JSON.
    public var regionOutlines: [[Point]?] = []
    /// Every line read (for pictures of the findings; not in the JSON).
    public var lines: [ReadLine] = []

    public var succeeded: Bool { error == nil }

    enum CodingKeys: String, CodingKey {
        case image, width, height, format, orientation, books, barcodes, unidentified, regions, error, timings
    }

    /// Every documented field is present; absent values are `null`, so scripts can rely on keys.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(image, forKey: .image)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(format, forKey: .format)
        try c.encode(orientation?.rawValue, forKey: .orientation)
        try c.encode(books, forKey: .books)
        try c.encode(barcodes, forKey: .barcodes)
        try c.encode(unidentified, forKey: .unidentified)
        try c.encode(regions, forKey: .regions)
        try c.encode(error, forKey: .error)
        try c.encode(timings, forKey: .timings)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        image = try c.decode(String.self, forKey: .image)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        format = try c.decodeIfPresent(ImageFormat.self, forKey: .format)
        orientation = try c.decodeIfPresent(Int.self, forKey: .orientation).flatMap(ExifOrientation.init(rawValue:))
        books = try c.decode([BookEntity].self, forKey: .books)
        barcodes = try c.decode([Barcode].self, forKey: .barcodes)
        unidentified = try c.decodeIfPresent([UnidentifiedText].self, forKey: .unidentified) ?? []
        regions = try c.decodeIfPresent([BoundingBox].self, forKey: .regions) ?? []
        error = try c.decodeIfPresent(ScanFailure.self, forKey: .error)
        timings = try c.decode(StageTimings.self, forKey: .timings)
    }

    public init(image: String, width: Int, height: Int, format: ImageFormat?, orientation: ExifOrientation?,
                books: [BookEntity], barcodes: [Barcode], unidentified: [UnidentifiedText] = [], error: ScanFailure?,
                timings: StageTimings, lookupProblems: [String] = []) {
        self.unidentified = unidentified
        self.image = image
        self.width = width
        self.height = height
        self.format = format
        self.orientation = orientation
        self.books = books
        self.barcodes = barcodes
        self.error = error
        self.timings = timings
        self.lookupProblems = lookupProblems
    }
}

/// A failed image: the error code and the one-line message shown to the user.
public struct ScanFailure: Codable, Sendable, Equatable {
    public let code: ShelfScanError.Code
    public let message: String

    public init(_ error: ShelfScanError) {
        code = error.code
        message = error.message
    }
}

/// Milliseconds spent per stage of the pipeline.
public struct StageTimings: Codable, Sendable {
    public var decode: Double = 0
    public var barcodes: Double = 0
    /// Finding spines and other text regions.
    public var regions: Double = 0
    /// Reading them (Tesseract), summed over the workers' wall time.
    public var ocr: Double = 0
    public var matching: Double = 0
    /// Catalogue lookups (cache or network).
    public var lookup: Double = 0
    public var total: Double = 0

    public init() {}
}

/// A book shelfscan believes is in the photo.
public struct BookEntity: Codable, Sendable {
    /// Known when the book is in the library (or, later, found by a metadata lookup).
    public var title: String?
    public var subtitle: String?
    public var authors: [String]
    public var isbn13: String?
    public var isbn10: String?
    /// True when the book is in the user's library; `libraryId` is then its row id.
    public var inLibrary: Bool
    public var libraryId: Int64?
    public var readingStatus: ReadingStatus?
    /// Where title and authors come from: `library`, `openlibrary`, `googlebooks`, or nil when
    /// only the ISBN is known.
    public var source: String?
    public var publisher: String?
    public var year: Int?
    public var coverURL: String?
    /// How sure shelfscan is that this book is in the photo, 0-1.
    public var confidence: Double
    /// What the book was recognised from.
    public var evidence: [Evidence]

    enum CodingKeys: String, CodingKey {
        case title, subtitle, authors, isbn13, isbn10, inLibrary, libraryId, readingStatus, source, publisher, year, coverURL
        case confidence, evidence
    }

    /// Every documented field is present; absent values are `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(title, forKey: .title)
        try c.encode(subtitle, forKey: .subtitle)
        try c.encode(authors, forKey: .authors)
        try c.encode(isbn13, forKey: .isbn13)
        try c.encode(isbn10, forKey: .isbn10)
        try c.encode(inLibrary, forKey: .inLibrary)
        try c.encode(libraryId, forKey: .libraryId)
        try c.encode(readingStatus, forKey: .readingStatus)
        try c.encode(source, forKey: .source)
        try c.encode(publisher, forKey: .publisher)
        try c.encode(year, forKey: .year)
        try c.encode(coverURL, forKey: .coverURL)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(evidence, forKey: .evidence)
    }
}

/// One observation supporting a book.
public struct Evidence: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case barcode, text }
    public let kind: Kind
    /// The barcode's canonical digits (with its add-on after a space), or the line of text read.
    public let text: String
    public let symbology: Symbology?
    public let addOn: String?
    public let box: BoundingBox
    /// Scan lines that agreed on the barcode.
    public let scanLines: Int?
    /// Text: which way it reads (`top-to-bottom`, `bottom-to-top`, `upright`, `upside-down`).
    public let orientation: String?
    /// Text: Tesseract's confidence in the line, 0-100.
    public let ocrConfidence: Double?
    /// Text: how well the book's title and authors match the text read, 0-1.
    public let matchScore: Double?
    /// Text: the region the line was read on (the whole spine, lying spine or cover; `box` is
    /// the line's own box within it).
    public let region: BoundingBox?

    enum CodingKeys: String, CodingKey { case kind, text, symbology, addOn, box, region, scanLines, orientation, ocrConfidence, matchScore }

    /// Every documented field is present; absent values are `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(text, forKey: .text)
        try c.encode(symbology, forKey: .symbology)
        try c.encode(addOn, forKey: .addOn)
        try c.encode(box, forKey: .box)
        try c.encode(region, forKey: .region)
        try c.encode(scanLines, forKey: .scanLines)
        try c.encode(orientation, forKey: .orientation)
        try c.encode(ocrConfidence, forKey: .ocrConfidence)
        try c.encode(matchScore, forKey: .matchScore)
    }

    public init(barcode: Barcode) {
        kind = .barcode
        text = barcode.text
        symbology = barcode.symbology
        addOn = barcode.addOn
        box = barcode.box
        scanLines = barcode.scanLines
        orientation = nil
        ocrConfidence = nil
        matchScore = nil
        region = nil
    }

    /// Whether `other` says what this says: the same kind, the same text read the same way, over
    /// mostly the same pixels (each box half inside the other). The passes after a region's first
    /// reading often read a line again just as it was (a spine's author line came back nine times
    /// from chris1's passes), which is no more evidence than reading it once.
    public func repeats(_ other: Evidence) -> Bool {
        kind == other.kind && text == other.text && orientation == other.orientation
            && RegionReader.covered(box, by: other.box) >= 0.5 && RegionReader.covered(other.box, by: box) >= 0.5
    }

    /// `list` with each set of repeats (`repeats`) shown once: the surest of them (OCR confidence),
    /// where the first of them stood.
    public static func distinct(_ list: [Evidence]) -> [Evidence] {
        var kept: [Evidence] = []
        for e in list {
            if let i = kept.firstIndex(where: { $0.repeats(e) }) {
                if (e.ocrConfidence ?? 0) > (kept[i].ocrConfidence ?? 0) { kept[i] = e }
            } else {
                kept.append(e)
            }
        }
        return kept
    }

    /// A line read, as evidence (`matchScore` nil: matched to nothing), read on `region`.
    public init(line: ReadLine, matchScore: Double?, region: BoundingBox? = nil) {
        kind = .text
        text = line.text
        symbology = nil
        addOn = nil
        box = line.box
        scanLines = nil
        orientation = ["upright", "bottom-to-top", "upside-down", "top-to-bottom"][((line.quarterTurns % 4) + 4) % 4]
        ocrConfidence = line.confidence
        self.matchScore = matchScore
        self.region = region
    }
}
