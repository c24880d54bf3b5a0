/// The image container formats shelfscan reads, recognised from their first bytes.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, tiff, webp, gif, pnm, bmp

    /// Recognises a format from the leading bytes of a file, or nil when none matches.
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        let head = Array(bytes.prefix(16))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("BM".utf8)) { return .bmp }
        if head.count >= 2, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[1]) {
            return .pnm
        }
        return nil
    }
}

/// Checks that an encoded image is complete, where the format makes that cheap to tell.
/// Decoders fill a truncated JPEG with gray and say nothing; we would rather say the file is cut.
enum ImageCompleteness {
    /// Returns a short reason when the data is visibly cut off, or nil when it looks complete.
    static func truncationReason(_ data: [UInt8], format: ImageFormat) -> String? {
        switch format {
        case .jpeg: return jpegTruncation(data)
        case .png: return pngTruncation(data)
        case .gif:
            // A GIF ends with the trailer byte 0x3B (some writers pad after it).
            return data.suffix(64).contains(0x3B) ? nil : "the GIF has no trailer"
        default: return nil
        }
    }

    /// Walks the JPEG marker segments and the entropy-coded data; a complete file reaches EOI.
    private static func jpegTruncation(_ d: [UInt8]) -> String? {
        var i = 2
        let n = d.count
        while i + 1 < n {
            guard d[i] == 0xFF else { return "the JPEG structure is damaged" }
            let marker = d[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD9 { return nil }  // EOI
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            guard i + 3 < n else { break }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            guard length >= 2 else { return "the JPEG structure is damaged" }
            i += 2 + length
            if marker == 0xDA {  // SOS: entropy-coded data follows until the next real marker
                while i + 1 < n {
                    if d[i] == 0xFF {
                        let next = d[i + 1]
                        if next != 0x00 && !(0xD0...0xD7).contains(next) && next != 0xFF { break }
                    }
                    i += 1
                }
            }
        }
        return "the JPEG ends before its image data is complete"
    }

    private static func pngTruncation(_ d: [UInt8]) -> String? {
        let iend: [UInt8] = Array("IEND".utf8)
        let tail = Array(d.suffix(64))
        guard tail.count >= 4 else { return "the PNG is cut off" }
        for start in stride(from: tail.count - 4, through: 0, by: -1) where Array(tail[start..<start + 4]) == iend {
            return nil
        }
        return "the PNG ends before its IEND chunk"
    }
}
