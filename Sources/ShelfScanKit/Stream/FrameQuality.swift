/// Cheap measures that decide whether a frame is worth the seconds OCR costs: a small thumbnail
/// (for "steady" and "changed") and a sharpness figure.
public struct FrameQuality: Sendable {
    /// 64x48 box-averaged gray thumbnail.
    public let thumbnail: [UInt8]
    /// Mean squared difference between neighbouring pixels in the middle of the frame (sampled
    /// every other row): dominated by strong edges, so it falls with blur.
    public let sharpness: Double
    /// Fraction of those neighbour pairs that differ by more than 24 gray levels: near 0 for a
    /// blank wall or table, whatever the sensor noise.
    public let edgeDensity: Double

    static let thumbWidth = 64, thumbHeight = 48

    public init(_ gray: GrayBytes) {
        let w = gray.width, h = gray.height
        var thumb = [UInt8](repeating: 0, count: Self.thumbWidth * Self.thumbHeight)
        var energy = 0, strong = 0, samples = 0
        gray.pixels.withUnsafeBufferPointer { px in
            for ty in 0..<Self.thumbHeight {
                let y0 = ty * h / Self.thumbHeight, y1 = max(y0 + 1, (ty + 1) * h / Self.thumbHeight)
                for tx in 0..<Self.thumbWidth {
                    let x0 = tx * w / Self.thumbWidth, x1 = max(x0 + 1, (tx + 1) * w / Self.thumbWidth)
                    // Every other row and column: a thumbnail needs no more.
                    var sum = 0, n = 0
                    var y = y0
                    while y < min(y1, h) {
                        var x = x0
                        while x < min(x1, w) { sum += Int(px[y * w + x]); n += 1; x += 2 }
                        y += 2
                    }
                    thumb[ty * Self.thumbWidth + tx] = UInt8(n > 0 ? sum / n : 0)
                }
            }
            var y = h / 4
            while y < 3 * h / 4 - 1 {
                let row = y * w
                var x = w / 4
                while x < 3 * w / 4 - 1 {
                    let p = Int(px[row + x])
                    let dx = p - Int(px[row + x + 1]), dy = p - Int(px[row + w + x])
                    energy += dx * dx + dy * dy
                    if abs(dx) > 24 { strong += 1 }
                    if abs(dy) > 24 { strong += 1 }
                    samples += 2
                    x += 1
                }
                y += 2
            }
        }
        thumbnail = thumb
        sharpness = samples > 0 ? Double(energy) / Double(samples) : 0
        edgeDensity = samples > 0 ? Double(strong) / Double(samples) : 0
    }

    /// Mean absolute difference between two thumbnails, in gray levels.
    public func difference(from other: FrameQuality) -> Double {
        var total = 0
        for i in thumbnail.indices { total += abs(Int(thumbnail[i]) - Int(other.thumbnail[i])) }
        return Double(total) / Double(thumbnail.count)
    }
}

/// Picks the frames OCR should read. The processing loop offers every sharp (not much blurrier
/// than recent frames, not blank) and steady (little motion since the previous frame) frame; when
/// OCR is free, it reads the newest one offered if the scene changed since the last frame read, or
/// if that reading found books not yet confirmed. Deciding "changed" when OCR is free, not when
/// the frame arrives, matters: a reading still running cannot yet say whether it wants another look.
public struct OCRFrameSelector: Sendable {
    /// Thumbnail difference (gray levels) below which two consecutive frames count as steady.
    public var steadyBelow = 4.0
    /// Thumbnail difference from the last frame read above which the scene has changed.
    public var changedAbove = 8.0
    /// Frames with fewer strong edges than this show nothing to read (a wall, a table, a lens cap).
    public var minimumEdgeDensity = 0.002
    /// A frame must be at least this fraction as sharp as the sharpest recent one.
    public var relativeSharpness = 0.7

    private var previous: FrameQuality?
    private var lastRead: FrameQuality?
    private var recentSharpest = 0.0

    public init() {}

    /// Looks at the next frame: true when it is sharp and steady enough to offer to OCR.
    public mutating func offer(_ quality: FrameQuality) -> Bool {
        defer { previous = quality }
        // The sharpest recent frame fades slowly, so a scene that gets blurrier is not waited on forever.
        recentSharpest = max(quality.sharpness, recentSharpest * 0.97)
        guard quality.edgeDensity >= minimumEdgeDensity, quality.sharpness >= relativeSharpness * recentSharpest else { return false }
        guard let previous, quality.difference(from: previous) < steadyBelow else { return false }
        return true
    }

    /// When OCR is free: whether an offered frame should be read. `wantsAnotherLook`: the last
    /// reading found books not yet confirmed. Records the frame as read when it says yes.
    public mutating func shouldRead(_ quality: FrameQuality, wantsAnotherLook: Bool) -> Bool {
        if let lastRead, quality.difference(from: lastRead) <= changedAbove && !wantsAnotherLook { return false }
        lastRead = quality
        return true
    }
}
