/// The one error type ShelfScanKit throws: a code callers can pattern-match and a one-line message
/// a user can act on (what went wrong, with which file, and what to do about it).
public struct ShelfScanError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Codable {
        case fileNotFound, notAFile, emptyFile, unreadableFile
        case unsupportedFormat, truncatedImage, corruptImage, imageTooLarge
        case modelMissing, ocrFailed, barcodeScannerFailed
        case invalidISBN, invalidArgument, database, notFound
        case network, rateLimited, badResponse
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
