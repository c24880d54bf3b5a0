import CLeptonica
import CRotateAM
import Foundation

extension PixImage {
    /// The dark shapes of this image and of its inverse (`darkShapes` of each: letters dark on
    /// light, then light on dark), from one pass over the picture: Sauvola's window means and
    /// mean squares of the inverse follow from the image's own (the sum of 255 - v is 255 n
    /// minus the sum of v; of its square, 65025 n - 510 sum + sum of squares), where Leptonica
    /// computes them again from the inverted copy. The shapes are exactly Leptonica's.
    public func darkAndLightShapes(halfWindow: Int, factor: Double = 0.3) throws(ShelfScanError)
        -> (dark: [BoundingBox], light: [BoundingBox])
    {
        let (dark, light) = try sauvolaBoth(halfWindow: halfWindow, factor: factor)
        return (try dark.shapeBoxes(), try light.shapeBoxes())
    }

    /// Sauvola binarisation (1-bit, dark pixels set) of this 8-bit image and of its inverse,
    /// pixel for pixel as `pixSauvolaBinarize(pixs, whsize, factor, addborder: 1)` of each
    /// (Leptonica 1.82, binarize.c and convolve.c): a mirrored border of `whsize + 1`; the
    /// window's mean truncated from a float product, its mean square rounded from a double one;
    /// the threshold `mean * (1 - k (1 - sd / 128))` truncated; a pixel set where it is below.
    /// `simd: false`: the Swift loops, the reference the C version is tested against.
    func sauvolaBoth(halfWindow: Int, factor: Double, simd: Bool = true) throws(ShelfScanError) -> (dark: PixImage, light: PixImage) {
        let gray = try grayBytes()
        let w = gray.width, h = gray.height
        let wc = max(2, min(halfWindow, (min(w, h) - 3) / 2))
        guard w >= 2 * wc + 3, h >= 2 * wc + 3 else {
            throw ShelfScanError(.corruptImage, "image operation failed: binarisation")
        }
        let incr = 2 * wc + 1
        let count = UInt32(incr * incr)
        // As Leptonica: a float norm for the mean, a double one (of the same float product) for
        // the mean square.
        let area = Float(incr) * Float(incr)
        let meanNorm = Float(1.0 / Double(area))
        let squareNorm = 1.0 / Double(area)
        let k = Double(Float(factor))
        guard let darkPix = pixCreate(Int32(w), Int32(h), 1), let lightPix = pixCreate(Int32(w), Int32(h), 1) else {
            throw ShelfScanError(.corruptImage, "image operation failed: binarisation")
        }
        let dark = PixImage(owning: darkPix), light = PixImage(owning: lightPix)
        let wpl = Int(pixGetWpl(darkPix))
        guard let darkBits = pixGetData(darkPix), let lightBits = pixGetData(lightPix) else {
            throw ShelfScanError(.corruptImage, "image operation failed: binarisation")
        }
        // Eight pixels at a time in C with AVX2 (`CRotateAM/sauvola.c`, the same bits), these
        // loops elsewhere.
        if simd, gray.pixels.withUnsafeBufferPointer({ px in
            shelfscan_sauvola_both(px.baseAddress, Int32(w), Int32(h), Int32(wc), meanNorm, squareNorm, k, darkBits, lightBits, Int32(wpl))
        }) == 0 {
            return (dark, light)
        }
        // The mirrored border: column b - 1 - x of the border is the image's column x, and so on.
        let b = wc + 1
        let bw = w + 2 * b, bh = h + 2 * b
        func source(_ i: Int, _ n: Int) -> Int { i < b ? b - 1 - i : (i >= b + n ? 2 * n + b - 1 - i : i - b) }
        let columns = (0..<bw).map { source($0, w) }
        // Summed-area tables over the bordered picture, one row and column of zeros ahead:
        // sums[(y + 1) * (bw + 1) + x + 1] holds the sum over rows 0...y and columns 0...x.
        let stride = bw + 1
        var sums = [UInt32](repeating: 0, count: (bh + 1) * stride)
        var squares = [UInt64](repeating: 0, count: (bh + 1) * stride)
        gray.pixels.withUnsafeBufferPointer { px in
            sums.withUnsafeMutableBufferPointer { s in
                squares.withUnsafeMutableBufferPointer { q in
                    for y in 0..<bh {
                        let row = source(y, h) * w
                        var rowSum: UInt32 = 0, rowSquares: UInt64 = 0
                        let above = y * stride, here = (y + 1) * stride
                        for x in 0..<bw {
                            let v = UInt32(px[row + columns[x]])
                            rowSum &+= v
                            rowSquares &+= UInt64(v * v)
                            s[here + x + 1] = s[above + x + 1] &+ rowSum
                            q[here + x + 1] = q[above + x + 1] &+ rowSquares
                        }
                    }
                }
            }
        }
        @inline(__always) func threshold(_ mean: UInt32, _ meanSquare: UInt32) -> Int {
            let mv = Int32(mean), variance = Int32(meanSquare) - mv * mv
            let sd = Double(Float(variance).squareRoot())
            return Int(Int32(Double(mv) * (1.0 - k * (1.0 - sd / 128.0)))) & 0xff
        }
        gray.pixels.withUnsafeBufferPointer { px in
            sums.withUnsafeBufferPointer { s in
                squares.withUnsafeBufferPointer { q in
                    for y in 0..<h {
                        // The window of pixel (x, y): bordered rows y + 1 ... y + incr, columns
                        // x + 1 ... x + incr (the border is wc + 1 wide).
                        let top = (y + 1) * stride, bottom = (y + 1 + incr) * stride
                        let darkRow = darkBits + y * wpl, lightRow = lightBits + y * wpl
                        for x in 0..<w {
                            let l = x + 1, r = x + 1 + incr
                            let sum = s[bottom + r] &- s[bottom + l] &- s[top + r] &+ s[top + l]
                            let sq = q[bottom + r] &- q[bottom + l] &- q[top + r] &+ q[top + l]
                            let inverseSum = 255 * count - sum
                            let inverseSquares = 65025 * UInt64(count) + sq - 510 * UInt64(sum)
                            let mean = UInt32(UInt8(truncatingIfNeeded: UInt32(meanNorm * Float(sum))))
                            let inverseMean = UInt32(UInt8(truncatingIfNeeded: UInt32(meanNorm * Float(inverseSum))))
                            let meanSquare = UInt32(squareNorm * Double(sq) + 0.5)
                            let inverseMeanSquare = UInt32(squareNorm * Double(inverseSquares) + 0.5)
                            let v = Int(px[y * w + x])
                            let bit = UInt32(0x8000_0000) >> UInt32(x & 31)
                            if v < threshold(mean, meanSquare) { darkRow[x >> 5] |= bit }
                            if 255 - v < threshold(inverseMean, inverseMeanSquare) { lightRow[x >> 5] |= bit }
                        }
                    }
                }
            }
        }
        return (dark, light)
    }
}
