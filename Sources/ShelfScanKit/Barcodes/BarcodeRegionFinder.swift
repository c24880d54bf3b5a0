import Foundation

/// A place in an image that looks like a linear barcode: many parallel edges in one direction.
struct BarcodeRegion: Sendable {
    /// Where, in the pixels of the image the finder was given.
    let box: BoundingBox
    /// Direction of the intensity gradient across the bars, in degrees, clockwise from the x axis
    /// (0: vertical bars, 90: horizontal bars), in [-90, 90).
    let gradientDegrees: Double
    /// Cells x mean coherence: bigger and cleaner stripes first.
    let score: Double
}

/// Finds barcode-like regions with the structure tensor: in a barcode nearly all the gradient
/// energy points one way (high coherence), unlike text, faces or foliage. Works on a small
/// gray image (a few hundred pixels a side) in a few milliseconds, so that the costly retry
/// passes run only on crops that may hold a barcode, and a photo without one is cheap.
struct BarcodeRegionFinder {
    /// Cell size in pixels of the analysed image.
    var cell = 8
    /// Mean squared gradient per pixel below which a cell is flat.
    var minEnergy = 120.0
    /// 1 = all gradients parallel; text and clutter sit well below 0.7.
    var minCoherence = 0.72
    /// Neighbouring cells join a region when their stripe directions differ by less than this.
    var maxAngleStep = 14.0
    /// Regions smaller than this many cells are ignored.
    var minCells = 5

    func find(in gray: GrayBytes) -> [BarcodeRegion] {
        let w = gray.width, h = gray.height
        let cw = w / cell, ch = h / cell
        guard cw >= 3, ch >= 3 else { return [] }
        var sxx = [Double](repeating: 0, count: cw * ch)
        var syy = sxx, sxy = sxx
        gray.pixels.withUnsafeBufferPointer { p in
            for y in 1..<(ch * cell) where y < h - 1 {
                let cy = y / cell
                for x in 1..<(cw * cell) where x < w - 1 {
                    let gx = Double(Int(p[y * w + x + 1]) - Int(p[y * w + x - 1]))
                    let gy = Double(Int(p[(y + 1) * w + x]) - Int(p[(y - 1) * w + x]))
                    let c = cy * cw + x / cell
                    sxx[c] += gx * gx
                    syy[c] += gy * gy
                    sxy[c] += gx * gy
                }
            }
        }
        // 3x3 cell neighbourhoods: a barcode spans several cells; single cells are noisy.
        let n = Double(cell * cell * 9)
        var energy = [Double](repeating: 0, count: cw * ch)
        var coherence = energy, angle = energy
        for cy in 0..<ch {
            for cx in 0..<cw {
                var a = 0.0, b = 0.0, c = 0.0
                for dy in -1...1 {
                    for dx in -1...1 {
                        let x = min(max(cx + dx, 0), cw - 1), y = min(max(cy + dy, 0), ch - 1)
                        a += sxx[y * cw + x]; b += syy[y * cw + x]; c += sxy[y * cw + x]
                    }
                }
                let i = cy * cw + cx
                energy[i] = (a + b) / n
                coherence[i] = a + b > 0 ? ((a - b) * (a - b) + 4 * c * c).squareRoot() / (a + b) : 0
                angle[i] = 0.5 * atan2(2 * c, a - b) * 180 / .pi
            }
        }
        var marked = [Bool](repeating: false, count: cw * ch)
        for i in 0..<marked.count { marked[i] = energy[i] >= minEnergy && coherence[i] >= minCoherence }

        // Connected regions of marked cells with similar stripe direction.
        var label = [Int](repeating: -1, count: cw * ch)
        var regions: [BarcodeRegion] = []
        var stack: [Int] = []
        for seed in 0..<marked.count where marked[seed] && label[seed] < 0 {
            label[seed] = seed
            stack.append(seed)
            var cells: [Int] = []
            var sumSin = 0.0, sumCos = 0.0, sumCoherence = 0.0
            while let i = stack.popLast() {
                cells.append(i)
                // Average directions on the doubled angle so that -89 and 89 degrees agree.
                sumSin += sin(2 * angle[i] * .pi / 180) * energy[i]
                sumCos += cos(2 * angle[i] * .pi / 180) * energy[i]
                sumCoherence += coherence[i]
                let x = i % cw, y = i / cw
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < cw, ny < ch else { continue }
                        let j = ny * cw + nx
                        guard marked[j], label[j] < 0, Self.angleDifference(angle[i], angle[j]) <= maxAngleStep else { continue }
                        label[j] = seed
                        stack.append(j)
                    }
                }
            }
            guard cells.count >= minCells else { continue }
            let xs = cells.map { $0 % cw }, ys = cells.map { $0 / cw }
            let box = BoundingBox(x: xs.min()! * cell, y: ys.min()! * cell,
                                  width: (xs.max()! - xs.min()! + 1) * cell, height: (ys.max()! - ys.min()! + 1) * cell)
            let degrees = 0.5 * atan2(sumSin, sumCos) * 180 / .pi
            regions.append(BarcodeRegion(box: box, gradientDegrees: degrees,
                                         score: Double(cells.count) * sumCoherence / Double(cells.count)))
        }
        return regions.sorted { $0.score > $1.score }
    }

    /// Difference between two stripe directions, in degrees, modulo 180.
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 180)
        return min(d, 180 - d)
    }
}
