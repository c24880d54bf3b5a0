/// The EXIF Orientation tag (0x0112): how stored pixels must be turned to be seen upright.
/// Phones store pixels as the sensor saw them and set this tag instead of rotating.
public enum ExifOrientation: Int, Sendable, Codable, CaseIterable {
    case up = 1, mirrored = 2, upsideDown = 3, upsideDownMirrored = 4
    case transposed = 5, rotatedClockwise = 6, transverse = 7, rotatedCounterclockwise = 8

    /// Reads the tag from a JPEG (APP1 Exif), PNG (eXIf chunk) or WebP (EXIF chunk).
    /// TIFF is left out on purpose: Leptonica's TIFF reader applies the tag itself.
    public static func read(from data: [UInt8], format: ImageFormat) -> ExifOrientation? {
        let tiff: ArraySlice<UInt8>?
        switch format {
        case .jpeg: tiff = jpegExif(data)
        case .png: tiff = pngExif(data)
        case .webp: tiff = webpExif(data)
        default: tiff = nil
        }
        guard let tiff, let value = orientationInTIFF(tiff) else { return nil }
        return ExifOrientation(rawValue: value)
    }

    /// Applies this orientation to stored pixels so that the result is upright.
    public func apply(to image: PixImage) throws(ShelfScanError) -> PixImage {
        switch self {
        case .up: return image
        case .mirrored: return try image.flippedHorizontally()
        case .upsideDown: return try image.rotated(quarterTurns: 2)
        case .upsideDownMirrored: return try image.flippedVertically()
        case .transposed: return try image.rotated(quarterTurns: 1).flippedHorizontally()
        case .rotatedClockwise: return try image.rotated(quarterTurns: 1)
        case .transverse: return try image.rotated(quarterTurns: 1).flippedVertically()
        case .rotatedCounterclockwise: return try image.rotated(quarterTurns: 3)
        }
    }

    /// True when applying the orientation swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    private static func jpegExif(_ d: [UInt8]) -> ArraySlice<UInt8>? {
        var i = 2
        while i + 4 <= d.count, d[i] == 0xFF {
            let marker = d[i + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            guard length >= 2, i + 2 + length <= d.count else { return nil }
            if marker == 0xE1, length >= 8,
               Array(d[(i + 4)..<(i + 10)]) == [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] {
                return d[(i + 10)..<(i + 2 + length)]
            }
            i += 2 + length
        }
        return nil
    }

    private static func pngExif(_ d: [UInt8]) -> ArraySlice<UInt8>? {
        var i = 8
        while i + 12 <= d.count {
            let length = Int(bigEndian32(d, i))
            let type = String(decoding: d[(i + 4)..<(i + 8)], as: UTF8.self)
            let start = i + 8
            guard length >= 0, start + length <= d.count else { return nil }
            if type == "eXIf" { return d[start..<(start + length)] }
            if type == "IDAT" || type == "IEND" { return nil }
            i = start + length + 4
        }
        return nil
    }

    private static func webpExif(_ d: [UInt8]) -> ArraySlice<UInt8>? {
        var i = 12
        while i + 8 <= d.count {
            let type = String(decoding: d[i..<(i + 4)], as: UTF8.self)
            let length = Int(d[i + 4]) | Int(d[i + 5]) << 8 | Int(d[i + 6]) << 16 | Int(d[i + 7]) << 24
            let start = i + 8
            guard start + length <= d.count else { return nil }
            if type == "EXIF" {
                var chunk = d[start..<(start + length)]
                // Some writers keep the JPEG-style "Exif\0\0" prefix inside the chunk.
                if chunk.starts(with: [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) { chunk = chunk.dropFirst(6) }
                return chunk
            }
            i = start + length + (length & 1)
        }
        return nil
    }

    /// Finds tag 0x0112 in IFD0 of a TIFF structure (the body of an EXIF block).
    static func orientationInTIFF(_ t: ArraySlice<UInt8>) -> Int? {
        let b = Array(t)
        guard b.count >= 8 else { return nil }
        let little: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= b.count else { return nil }
            return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let lo = u16(little ? o : o + 2), let hi = u16(little ? o + 2 : o) else { return nil }
            return hi << 16 | lo
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<min(count, 512) {
            let entry = ifd + 2 + 12 * k
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard let type = u16(entry + 2), type == 3, let value = u16(entry + 8) else { return nil }
                return (1...8).contains(value) ? value : nil
            }
        }
        return nil
    }

    private static func bigEndian32(_ d: [UInt8], _ i: Int) -> UInt32 {
        UInt32(d[i]) << 24 | UInt32(d[i + 1]) << 16 | UInt32(d[i + 2]) << 8 | UInt32(d[i + 3])
    }
}
