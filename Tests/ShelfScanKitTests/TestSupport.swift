import CLeptonica
import Foundation
@testable import ShelfScanKit

/// Where the test inputs live, found from this file's path so that tests do not depend on the
/// working directory `swift test` happens to run in.
enum Fixtures {
    /// The repository root: this file is `<root>/Tests/ShelfScanKitTests/TestSupport.swift`.
    static let repoRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .standardizedFileURL.path

    /// The committed sample images (`SampleImages/`).
    static let sampleImages = repoRoot + "/SampleImages"

    /// A file inside `SampleImages/`.
    static func sample(_ relative: String) -> String { sampleImages + "/" + relative }

    /// A small labelled corpus in `dir`: the first `perSet` images of each set of SampleImages
    /// named in `sets`, with their truth lines (the whole of SampleImages takes minutes in a
    /// debug build; the release-build gates run it all).
    static func sampleSubset(in dir: TemporaryDirectory, sets: [String], perSet: Int) throws -> String {
        let root = dir.file("corpus")
        let truth = try String(contentsOfFile: sampleImages + "/truth.jsonl", encoding: .utf8)
        var kept: [String] = []
        var counts: [String: Int] = [:]
        for line in truth.split(separator: "\n") {
            guard let data = line.data(using: .utf8),
                  let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let image = object["image"] as? String,
                  let set = image.split(separator: "/").first.map(String.init),
                  sets.contains(set), counts[set, default: 0] < perSet else { continue }
            counts[set, default: 0] += 1
            let target = root + "/" + image
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sampleImages + "/" + image, toPath: target)
            kept.append(String(line))
        }
        try (kept.joined(separator: "\n") + "\n").write(toFile: root + "/truth.jsonl", atomically: true, encoding: .utf8)
        return root
    }

    /// The repository's Tesseract model folder.
    static let models = repoRoot + "/Models"

    /// `../shared/corpora` beside the repository; absent on machines without the shared material.
    static let sharedCorpora = URL(fileURLWithPath: repoRoot).deletingLastPathComponent()
        .appendingPathComponent("shared/corpora").path

    /// True when `../shared` exists beside the repository root.
    static var hasSharedCorpora: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: sharedCorpora, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The bytes of a file, or an error naming it.
    static func bytes(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FixtureError("cannot read \(path)")
        }
        return [UInt8](data)
    }
}

/// A failure in preparing test inputs (not in the code under test).
struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh, empty directory, removed when the value goes away. One per test, so that tests
/// running in parallel never see each other's files.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("shelfscan-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory (not created).
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }
}

/// CRC-32 (IEEE 802.3, the one PNG chunks carry), computed here so that crafting PNG bytes needs
/// no zlib binding.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

/// Big-endian bytes of a 32-bit value, as PNG writes lengths and sizes.
func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// Encodes images with Leptonica itself, so that tests can produce TIFF, PNM, WebP, GIF and BMP
/// files without any tool or dependency beyond the one shelfscan already links.
enum LeptonicaEncoder {
    static func fileFormat(_ format: ImageFormat) -> Int32 {
        switch format {
        case .jpeg: Int32(IFF_JFIF_JPEG)
        case .png: Int32(IFF_PNG)
        case .tiff: Int32(IFF_TIFF)
        case .webp: Int32(IFF_WEBP)
        case .gif: Int32(IFF_GIF)
        case .pnm: Int32(IFF_PNM)
        case .bmp: Int32(IFF_BMP)
        }
    }

    /// The encoded bytes of `image` in `format`. The corresponding C function is `pixWriteMem`.
    static func encode(_ image: PixImage, as format: ImageFormat) throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard image.withPix({ pixWriteMem(&data, &size, $0, fileFormat(format)) }) == 0, let data, size > 0 else {
            throw FixtureError("Leptonica cannot write \(format.rawValue)")
        }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// Deterministic "random" test bytes, the same on every run.
struct SeededBytes {
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(state: seed) }

    mutating func next() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in next() } }

    /// A gray picture of grays between `low` and `high`, in runs (a new gray at about one pixel
    /// in three), so that neighbours are often alike and gradients come small and large.
    mutating func grays(width: Int, height: Int, low: UInt8 = 0, high: UInt8 = 255) -> GrayBytes {
        var gray = low
        let pixels = (0..<width * height).map { _ -> UInt8 in
            if next() < 90 { gray = low + UInt8(Int(next()) * (Int(high) - Int(low)) / 255) }
            return gray
        }
        return GrayBytes(width: width, height: height, pixels: pixels)
    }
}

/// PNG chunks built by hand: length, type, data, CRC over type and data.
enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndianBytes(UInt32(data.count)) + typeBytes + data + bigEndianBytes(CRC32.checksum(typeBytes + data))
    }

    /// An IHDR chunk for an 8-bit RGB, non-interlaced image.
    static func ihdr(width: UInt32, height: UInt32) -> [UInt8] {
        chunk("IHDR", bigEndianBytes(width) + bigEndianBytes(height) + [8, 2, 0, 0, 0])
    }

    static let iend = chunk("IEND", [])
}

/// Runs CPU-heavy synchronous work (OCR, matching against 25k books) on a thread of its own and
/// waits for it without holding one of the few threads Swift concurrency runs every test on:
/// otherwise the timing tests of the catalogue clients, running in parallel, stall for tens of
/// seconds behind it.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// `body` off the pool (`offPool`) with one engine and a reader without the read deadline, so a
/// loaded machine reads what an idle one does.
func offPoolReading<T: Sendable>(_ body: @escaping @Sendable (inout RegionReader, TesseractEngine) throws -> T) async throws -> T {
    try await offPool {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        var reader = RegionReader()
        reader.readDeadline = nil
        return try body(&reader, engine)
    }
}
