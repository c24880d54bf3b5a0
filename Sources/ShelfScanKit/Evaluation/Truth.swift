import Foundation

/// One line of a corpus's `truth.jsonl` (see the shared TRUTH-FORMAT.md).
public struct TruthRecord: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case shelf, cover, barcode, stack, none }

    public struct LabelledBook: Codable, Sendable {
        public let title: String
        public let authors: [String]?
        public let isbn13: String?
    }

    /// Path relative to the corpus folder.
    public let image: String
    public let kind: Kind
    public let books: [LabelledBook]
    /// Canonical codes, each optionally followed by a space and its add-on.
    public let barcodes: [String]
    public let unlabelledRegions: Bool?
    public let notes: String?

    enum CodingKeys: String, CodingKey {
        case image, kind, books, barcodes, notes
        case unlabelledRegions = "unlabelled_regions"
    }

    /// The set an image belongs to: the first folder of its path ("." when it has none).
    public var set: String {
        let parts = image.split(separator: "/")
        return parts.count > 1 ? String(parts[0]) : "."
    }

    /// Expected main codes and their add-ons.
    public var expectedCodes: [(main: String, addOn: String?)] {
        barcodes.map { entry in
            let parts = entry.split(separator: " ").map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : nil)
        }
    }

    /// Reads `truth.jsonl` in `directory`. Errors name the file and line.
    public static func load(directory: String) throws(ShelfScanError) -> [TruthRecord] {
        let path = directory + "/truth.jsonl"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ShelfScanError(.fileNotFound, "\(path): not found; a corpus folder needs a truth.jsonl (see TRUTH-FORMAT.md)")
        }
        var records: [TruthRecord] = []
        let decoder = JSONDecoder()
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            do {
                records.append(try decoder.decode(TruthRecord.self, from: Data(trimmed.utf8)))
            } catch {
                throw ShelfScanError(.invalidArgument, "\(path):\(number + 1): not a valid truth record (\(error)); fix the line")
            }
        }
        return records
    }
}
