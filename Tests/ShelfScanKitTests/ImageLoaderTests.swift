import CLeptonica
import Foundation
import Testing
@testable import ShelfScanKit

/// Colour tests for the orientation samples: a red block top-left and a blue block bottom-right
/// on white, 120x80 as displayed (SampleImages/orientation/README.md).
enum OrientationSample {
    static let width = 120, height = 80

    static func path(_ n: Int) -> String { Fixtures.sample("orientation/exif-\(n).jpg") }

    static func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool {
        Int(p.r) > Int(p.g) + 80 && Int(p.r) > Int(p.b) + 80
    }

    static func isBlue(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool {
        Int(p.b) > Int(p.r) + 80 && Int(p.b) > Int(p.g) + 80
    }

    static func isWhite(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool {
        p.r > 200 && p.g > 200 && p.b > 200
    }

    /// Checks the upright layout: red top-left, blue bottom-right, white in the other corners.
    static func expectUpright(_ image: PixImage, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.width == width && image.height == height, "\(what): \(image.width)x\(image.height)", sourceLocation: sourceLocation)
        let w = image.width, h = image.height
        let topLeft = image.rgb(x: 15, y: 15)
        let bottomRight = image.rgb(x: w - 15, y: h - 15)
        #expect(isRed(topLeft), "\(what): top-left is \(topLeft), expected red", sourceLocation: sourceLocation)
        #expect(isBlue(bottomRight), "\(what): bottom-right is \(bottomRight), expected blue", sourceLocation: sourceLocation)
        #expect(isWhite(image.rgb(x: w - 15, y: 15)), "\(what): top-right should be white", sourceLocation: sourceLocation)
        #expect(isWhite(image.rgb(x: 15, y: h - 15)), "\(what): bottom-left should be white", sourceLocation: sourceLocation)
    }
}

@Suite("EXIF orientation")
struct ExifOrientationTests {
    @Test("each orientation sample is upright after loading", arguments: 1...8)
    func uprightAfterLoading(_ n: Int) throws {
        let loaded = try ImageLoader().load(path: OrientationSample.path(n))
        #expect(loaded.format == .jpeg)
        #expect(loaded.orientation?.rawValue == n)
        OrientationSample.expectUpright(loaded.image, "exif-\(n)")
    }

    @Test("the tag is read from the JPEG's APP1 block", arguments: 1...8)
    func readsTag(_ n: Int) throws {
        let bytes = try Fixtures.bytes(OrientationSample.path(n))
        #expect(ExifOrientation.read(from: bytes, format: .jpeg)?.rawValue == n)
        #expect(ExifOrientation(rawValue: n)?.swapsDimensions == (n >= 5))
    }

    @Test("no tag: JPEGs without EXIF, and TIFF (Leptonica applies it there itself)")
    func noTag() throws {
        let plain = try Fixtures.bytes(Fixtures.sample("barcodes/none-blank-table.jpg"))
        #expect(ExifOrientation.read(from: plain, format: .jpeg) == nil)
        let tagged = try Fixtures.bytes(OrientationSample.path(6))
        #expect(ExifOrientation.read(from: tagged, format: .tiff) == nil)
        #expect(try ImageLoader().decode(plain, name: "plain.jpg").orientation == nil)
    }

    /// A PNG whose stored pixels are the upright sample turned a quarter counterclockwise, with an
    /// eXIf chunk (big-endian TIFF, orientation 6) saying to turn it clockwise for display.
    @Test("the eXIf chunk of a PNG is applied")
    func pngExif() throws {
        let upright = try ImageLoader().load(path: OrientationSample.path(1)).image
        let stored = try upright.rotated(quarterTurns: 3)
        let png = try LeptonicaEncoder.encode(stored, as: .png)
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8,  // header, IFD0 at 8
                             0, 1,  // one entry
                             0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0,  // Orientation, SHORT, 1, value 6
                             0, 0, 0, 0]  // no next IFD
        let ihdrEnd = 8 + 4 + 4 + 13 + 4
        let tagged = Array(png[..<ihdrEnd]) + PNGBytes.chunk("eXIf", tiff) + Array(png[ihdrEnd...])
        #expect(ExifOrientation.read(from: tagged, format: .png) == .rotatedClockwise)
        let loaded = try ImageLoader().decode(tagged, name: "tagged.png")
        #expect(loaded.orientation == .rotatedClockwise)
        OrientationSample.expectUpright(loaded.image, "PNG with eXIf 6")
    }
}

@Suite("Image loading: bad input")
struct ImageLoaderErrorTests {
    /// Runs `body`, requires a `ShelfScanError`, and checks its code and that it names `path`.
    func expectError(
        _ codes: Set<ShelfScanError.Code>, naming path: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws(ShelfScanError) -> LoadedImage
    ) {
        do {
            let loaded = try body()
            Issue.record("expected \(codes) but loaded a \(loaded.image.width)x\(loaded.image.height) image", sourceLocation: sourceLocation)
        } catch {
            #expect(codes.contains(error.code), "got \(error.code): \(error.message)", sourceLocation: sourceLocation)
            #expect(error.message.contains(path), "message does not name the file: \(error.message)", sourceLocation: sourceLocation)
            #expect(!error.message.contains("\n"), "message is not one line: \(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test("a missing file")
    func missing() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("no-such-photo.jpg")
        expectError([.fileNotFound], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    @Test("a directory")
    func directory() throws {
        let dir = try TemporaryDirectory()
        expectError([.notAFile], naming: dir.path) { () throws(ShelfScanError) in try ImageLoader().load(path: dir.path) }
    }

    @Test("an empty file")
    func empty() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("empty.jpg", [])
        expectError([.emptyFile], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    @Test("a text file")
    func text() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("notes.jpg", Array("Shelf 3: Homer, Orwell, Austen\n".utf8))
        expectError([.unsupportedFormat], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    @Test("a JPEG cut to half its length", arguments: ["orientation/exif-1.jpg", "barcodes/isbn-janeeyre-jpeg30.jpg"])
    func truncatedJPEG(_ sample: String) throws {
        let dir = try TemporaryDirectory()
        let bytes = try Fixtures.bytes(Fixtures.sample(sample))
        let path = try dir.write("half.jpg", Array(bytes.prefix(bytes.count / 2)))
        expectError([.truncatedImage], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    @Test("a PNG cut short: at half its length, or just before IEND", arguments: [0.5, -1])
    func truncatedPNG(_ fraction: Double) throws {
        let dir = try TemporaryDirectory()
        let bytes = try Fixtures.bytes(Fixtures.sample("barcodes/isbn-1984-clean.png"))
        // -1: only the 12-byte IEND chunk is missing; the pixel data itself is complete.
        let keep = fraction < 0 ? bytes.count - 12 : Int(Double(bytes.count) * fraction)
        let path = try dir.write("cut.png", Array(bytes.prefix(keep)))
        expectError([.truncatedImage, .corruptImage], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    @Test("random bytes after a JPEG or PNG signature", arguments: [ImageFormat.jpeg, .png])
    func garbageAfterSignature(_ format: ImageFormat) throws {
        let dir = try TemporaryDirectory()
        var random = SeededBytes(seed: format == .jpeg ? 1 : 2)
        let signature: [UInt8] = format == .jpeg ? [0xFF, 0xD8, 0xFF, 0xE0] : PNGBytes.signature
        let path = try dir.write("garbage.\(format.rawValue)", signature + random.bytes(4096))
        expectError([.corruptImage, .truncatedImage], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    /// Garbage between a PNG signature and a well-formed IEND: it passes the completeness check,
    /// so only the decoder can refuse it.
    @Test("garbage PNG that ends with a proper IEND is corrupt")
    func garbagePNGWithIEND() throws {
        let dir = try TemporaryDirectory()
        var random = SeededBytes(seed: 3)
        let path = try dir.write("garbage-iend.png", PNGBytes.signature + random.bytes(4096) + PNGBytes.iend)
        expectError([.corruptImage], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
    }

    /// 20000x20000 RGB would need 1.6 GB. The IDAT holds a few bytes that are not even a valid
    /// zlib stream, so had the loader gone on to decode, it would have failed with `.corruptImage`
    /// (or allocated the full image first): `.imageTooLarge` shows the header alone refused it.
    @Test("a PNG header claiming 20000x20000 is refused before decoding")
    func decompressionBomb() throws {
        let dir = try TemporaryDirectory()
        let bytes = PNGBytes.signature + PNGBytes.ihdr(width: 20000, height: 20000)
            + PNGBytes.chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00]) + PNGBytes.iend
        #expect(bytes.count < 100)
        let path = try dir.write("bomb.png", bytes)
        expectError([.imageTooLarge], naming: path) { () throws(ShelfScanError) in try ImageLoader().load(path: path) }
        do {
            _ = try ImageLoader().load(path: path)
        } catch {
            #expect(error.message.contains("20000x20000"))
        }
    }

    @Test("ImageLimits: a small pixel budget refuses a sample image")
    func pixelLimit() throws {
        var limits = ImageLimits()
        limits.maxPixels = 120 * 80 - 1
        let path = OrientationSample.path(1)
        expectError([.imageTooLarge], naming: path) { () throws(ShelfScanError) in try ImageLoader(limits: limits).load(path: path) }
        limits.maxPixels = 120 * 80
        #expect(throws: Never.self) { try ImageLoader(limits: limits).load(path: path) }
    }

    @Test("ImageLimits: a small file-size budget refuses a sample image")
    func fileSizeLimit() throws {
        var limits = ImageLimits()
        let path = Fixtures.sample("barcodes/isbn-1984-clean.png")
        let size = try Fixtures.bytes(path).count
        limits.maxFileBytes = size - 1
        expectError([.imageTooLarge], naming: path) { () throws(ShelfScanError) in try ImageLoader(limits: limits).load(path: path) }
        let name = "buffer-for-limits"
        let bytes = try Fixtures.bytes(path)
        expectError([.imageTooLarge], naming: name) { () throws(ShelfScanError) in
            try ImageLoader(limits: limits).decode(bytes, name: name)
        }
    }
}

@Suite("Image loading: formats and memory")
struct ImageFormatTests {
    @Test("gray bytes packed into an image and read back are the same bytes, whatever the row's padding",
          arguments: [1, 2, 3, 4, 5, 7, 8, 13, 640])
    func grayRoundTrip(_ width: Int) throws {
        var generator = SplitMix64(state: UInt64(width))
        let height = 3
        let pixels = (0..<width * height).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let image = try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels))
        #expect(image.width == width && image.height == height)
        #expect(try image.grayBytes().pixels == pixels)
    }

    @Test("a tone curve above 1 darkens mid-tones, below 1 lightens them, and keeps black and white")
    func toneCurve() throws {
        let pixels: [UInt8] = [0, 64, 128, 192, 255]
        let image = try PixImage(gray: GrayBytes(width: pixels.count, height: 1, pixels: pixels))
        let darker = try image.gammaAdjusted(2).grayBytes().pixels
        let lighter = try image.gammaAdjusted(0.5).grayBytes().pixels
        #expect(darker.first == 0 && darker.last == 255 && lighter.first == 0 && lighter.last == 255)
        for i in 1..<pixels.count - 1 {
            #expect(darker[i] < pixels[i] && lighter[i] > pixels[i], "pixel \(pixels[i]): darker \(darker[i]), lighter \(lighter[i])")
        }
        // 128 under gamma 2 is about 255 * (128/255)^2 = 64.
        #expect(abs(Int(darker[2]) - 64) <= 2)
    }

    @Test("one image worked on from two threads at once keeps its reference count (Leptonica clones it inside)")
    func sharedAcrossThreads() throws {
        var generator = SplitMix64(state: 7)
        let image = try PixImage(gray: GrayBytes(width: 64, height: 48, pixels: (0..<64 * 48).map { _ in
            UInt8(truncatingIfNeeded: generator.next())
        }))
        // pixScaleGeneral and pixGetRankValue take a clone of their input and destroy it; with a
        // plain integer count, two threads doing it at once lose updates.
        let failures = ResultSlots<Bool>(count: 4000)
        DispatchQueue.concurrentPerform(iterations: 4000) { i in
            let ok = (try? image.scaled(by: 1.5)) != nil && image.rank(0.5) != nil
            failures.set(i, !ok)
        }
        #expect(failures.values.allSatisfy { $0 == false })
        #expect(image.withPix { pixGetRefcount($0) } == 1)
    }

    @Test("decoding from memory gives the same image as from the file", arguments: [
        "orientation/exif-1.jpg", "orientation/exif-6.jpg", "orientation/exif-7.jpg",
        "barcodes/isbn-1984-clean.png", "barcodes/isbn-gatsby-large.jpg",
    ])
    func memoryMatchesFile(_ sample: String) throws {
        let path = Fixtures.sample(sample)
        let fromFile = try ImageLoader().load(path: path)
        let fromMemory = try ImageLoader().decode(Fixtures.bytes(path), name: "in-memory")
        #expect(fromMemory.name == "in-memory")
        #expect(fromFile.name == path)
        #expect(fromMemory.image.width == fromFile.image.width)
        #expect(fromMemory.image.height == fromFile.image.height)
        #expect(fromMemory.format == fromFile.format)
        #expect(fromMemory.orientation == fromFile.orientation)
        #expect(fromMemory.image.rgb(x: 15, y: 15) == fromFile.image.rgb(x: 15, y: 15))
    }

    @Test("the committed samples load with their format and size", arguments: [
        ("barcodes/isbn-1984-clean.png", ImageFormat.png, 640, 480),
        ("barcodes/isbn-odyssey-ean5-clean.png", .png, 1280, 720),
        ("barcodes/isbn-janeeyre-jpeg30.jpg", .jpeg, 640, 480),
        ("barcodes/isbn-gatsby-large.jpg", .jpeg, 3000, 2250),
    ])
    func samples(_ sample: String, _ format: ImageFormat, _ width: Int, _ height: Int) throws {
        let loaded = try ImageLoader().load(path: Fixtures.sample(sample))
        #expect(loaded.format == format)
        #expect(loaded.image.width == width && loaded.image.height == height)
    }

    /// Every container shelfscan claims to read, written by Leptonica from the upright orientation
    /// sample, then loaded back from a file: same size, colours in the same corners.
    @Test("every container format round-trips", arguments: ImageFormat.allCases)
    func roundTrip(_ format: ImageFormat) throws {
        let upright = try ImageLoader().load(path: OrientationSample.path(1)).image
        let bytes = try LeptonicaEncoder.encode(upright, as: format)
        #expect(ImageFormat.sniff(bytes) == format)
        let dir = try TemporaryDirectory()
        let path = try dir.write("sample.\(format.rawValue)", bytes)
        let loaded = try ImageLoader().load(path: path)
        #expect(loaded.format == format)
        #expect(loaded.orientation == nil)
        OrientationSample.expectUpright(loaded.image, format.rawValue)
    }

    struct SniffCase: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let format: ImageFormat?
        init(_ bytes: [UInt8], _ format: ImageFormat?) {
            self.bytes = bytes
            self.format = format
        }
        var testDescription: String { "\(bytes.prefix(12)) -> \(format?.rawValue ?? "nil")" }
    }

    static let sniffCases: [SniffCase] = [
        SniffCase(Array("GIF89a".utf8) + [0, 0], .gif),
        SniffCase(Array("GIF87a".utf8) + [0, 0], .gif),
        SniffCase(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
        SniffCase(Array("P6\n120 80\n255\n".utf8), .pnm),
        SniffCase([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        SniffCase([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .tiff),
        SniffCase(Array("BM".utf8) + [0, 0, 0, 0], .bmp),
        SniffCase(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8), nil),
        SniffCase(Array("P9".utf8), nil),
        SniffCase([0xFF, 0xD8], nil),
        SniffCase([], nil),
    ]

    @Test("format sniffing", arguments: sniffCases)
    func sniff(_ c: SniffCase) {
        #expect(ImageFormat.sniff(c.bytes) == c.format)
    }
}
