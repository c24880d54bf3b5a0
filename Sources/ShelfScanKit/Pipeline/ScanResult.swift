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
    public let books: [BookEntity]
    /// Every verified barcode, books and not books, in reading order.
    public let barcodes: [Barcode]
    /// Why the image could not be scanned, if it could not.
    public let error: ScanFailure?
    /// Where the time went, in milliseconds.
    public let timings: StageTimings

    public var succeeded: Bool { error == nil }
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
    public var matching: Double = 0
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
    /// How sure shelfscan is that this book is in the photo, 0-1.
    public var confidence: Double
    /// What the book was recognised from.
    public var evidence: [Evidence]
}

/// One observation supporting a book.
public struct Evidence: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case barcode }
    public let kind: Kind
    /// The barcode's canonical digits (with its add-on after a space).
    public let text: String
    public let symbology: Symbology?
    public let addOn: String?
    public let box: BoundingBox
    /// Scan lines that agreed on the barcode.
    public let scanLines: Int?

    public init(barcode: Barcode) {
        kind = .barcode
        text = barcode.text
        symbology = barcode.symbology
        addOn = barcode.addOn
        box = barcode.box
        scanLines = barcode.scanLines
    }
}
