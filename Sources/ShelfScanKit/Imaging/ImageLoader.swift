import CLeptonica
import Foundation

/// Limits that protect the machine from absurd or hostile images.
public struct ImageLimits: Sendable {
    /// Largest decoded size accepted, in pixels (width x height).
    public var maxPixels: Int = 100_000_000
    /// Largest file accepted, in bytes.
    public var maxFileBytes: Int = 512 << 20

    public init() {}
}

/// An image ready for the pipeline: decoded, turned upright, with where it came from.
public struct LoadedImage: Sendable {
    /// The file path or the caller's name for an in-memory buffer; used in messages.
    public let name: String
    public let format: ImageFormat
    /// The EXIF orientation found and applied (nil when the file had none).
    public let orientation: ExifOrientation?
    /// The upright image.
    public let image: PixImage
}

/// Decodes image files and buffers through Leptonica (JPEG, PNG, TIFF, WebP, GIF, PNM, BMP),
/// applies the EXIF Orientation tag and refuses images that are cut off or too large.
public struct ImageLoader: Sendable {
    public var limits: ImageLimits

    public init(limits: ImageLimits = ImageLimits()) {
        self.limits = limits
        Leptonica.silence()
    }

    /// Reads and decodes a file. Errors name the file and say what to do.
    public func load(path: String) throws(ShelfScanError) -> LoadedImage {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ShelfScanError(.fileNotFound, "\(path): no such file; check the path")
        }
        if isDirectory.boolValue {
            throw ShelfScanError(.notAFile, "\(path): is a directory; pass image files (e.g. \(path)/*.jpg)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if let size, size > limits.maxFileBytes {
            throw ShelfScanError(.imageTooLarge, "\(path): file is \(Self.megabytes(size)) MB, over the \(Self.megabytes(limits.maxFileBytes)) MB limit; downscale it first")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ShelfScanError(.unreadableFile, "\(path): cannot be opened; check its permissions")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limits.maxFileBytes + 1) ?? Data()
        } catch {
            throw ShelfScanError(.unreadableFile, "\(path): read failed (\(error.localizedDescription)); check the file")
        }
        return try decode([UInt8](data), name: path)
    }

    /// Decodes an encoded image held in memory (a frame from a pipe, a download).
    public func decode(_ bytes: [UInt8], name: String) throws(ShelfScanError) -> LoadedImage {
        guard !bytes.isEmpty else {
            throw ShelfScanError(.emptyFile, "\(name): file is empty (0 bytes); re-copy or re-export it")
        }
        guard let format = ImageFormat.sniff(bytes) else {
            throw ShelfScanError(.unsupportedFormat, "\(name): not an image shelfscan can read; use JPEG, PNG, TIFF, WebP, GIF or PNM")
        }
        if bytes.count > limits.maxFileBytes {
            throw ShelfScanError(.imageTooLarge, "\(name): \(Self.megabytes(bytes.count)) MB of image data is over the \(Self.megabytes(limits.maxFileBytes)) MB limit; downscale it first")
        }
        if let reason = ImageCompleteness.truncationReason(bytes, format: format) {
            throw ShelfScanError(.truncatedImage, "\(name): file is truncated (\(reason)); re-copy or re-export it")
        }
        // Read the header first, so that a small file claiming a huge size (a decompression bomb)
        // is refused before any pixel memory is allocated.
        var iff: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
        let headerStatus = bytes.withUnsafeBufferPointer {
            pixReadHeaderMem($0.baseAddress, $0.count, &iff, &w, &h, &bps, &spp, &cmap)
        }
        guard headerStatus == 0, w > 0, h > 0 else {
            throw ShelfScanError(.corruptImage, "\(name): \(format.rawValue.uppercased()) header is unreadable (corrupt file); re-copy or re-export it")
        }
        let pixels = Int(w) * Int(h)
        if pixels > limits.maxPixels {
            throw ShelfScanError(.imageTooLarge, "\(name): image is \(w)x\(h) (\(Self.megapixels(pixels)) megapixels), over the \(Self.megapixels(limits.maxPixels)) MP limit; downscale it first")
        }
        let pix = bytes.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) }
        guard let pix else {
            throw ShelfScanError(.corruptImage, "\(name): \(format.rawValue.uppercased()) data is corrupt and cannot be decoded; re-copy or re-export it")
        }
        var image = PixImage(owning: pix)
        let orientation = ExifOrientation.read(from: bytes, format: format)
        if let orientation, orientation != .up {
            image = try orientation.apply(to: image)
        }
        return LoadedImage(name: name, format: format, orientation: orientation, image: image)
    }

    private static func megapixels(_ pixels: Int) -> String {
        pixels >= 10_000_000 ? String(pixels / 1_000_000) : String(format: "%.1f", Double(pixels) / 1_000_000)
    }

    private static func megabytes(_ bytes: Int) -> String {
        bytes >= 10 << 20 ? String(bytes >> 20) : String(format: "%.1f", Double(bytes) / Double(1 << 20))
    }
}

/// Process-wide Leptonica settings.
enum Leptonica {
    private static let silenced: Void = {
        // Leptonica prints "Error in ..." lines on stderr for conditions we report ourselves.
        leptSetStderrHandler { _ in }
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    }()

    static func silence() { _ = silenced }
}
