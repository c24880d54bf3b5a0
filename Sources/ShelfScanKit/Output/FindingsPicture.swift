import Foundation

/// `--annotate DIR`: a picture of what a scan found in an image, so a person sees at a glance
/// what was read and what was missed, and a text legend beside it.
///
/// Blue: regions searched for text (a leaning spine as its slanted outline, not its upright
/// box); green: the regions that named a book (drawn over their blue),
/// and the text and barcodes that identified it; orange: confident text that matched no book;
/// grey (thin): text read but not used. A blue region is one where no book was found. Each book
/// is tagged with its rank in the legend and its title, along the line it was read from.
public enum FindingsPicture {
    /// Writes `<name>.png` and `<name>.txt` into `folder` (the name made from the image path).
    /// `verdict` may mark books right or wrong (eval); wrong ones are drawn red.
    public static func write(_ result: ImageResult, into folder: String, imagePath: String? = nil,
                             verdict: ((BookEntity) -> Bool?)? = nil, extraLegend: String = "") {
        let path = imagePath ?? result.image
        guard result.error == nil, let loaded = try? ImageLoader().load(path: path) else { return }
        // A leaning spine is drawn as itself (its outline), not as the upright box around it.
        var outlineOf: [BoundingBox: [Point]] = [:]
        for (box, outline) in zip(result.regions, result.regionOutlines) { if let outline { outlineOf[box] = outline } }
        var outlines: [(points: [Point], rgb: (UInt8, UInt8, UInt8))] = []
        var boxes: [(box: BoundingBox, rgb: (UInt8, UInt8, UInt8))] = []
        func region(_ box: BoundingBox, _ rgb: (UInt8, UInt8, UInt8)) {
            if let outline = outlineOf[box] { outlines.append((outline, rgb)) } else { boxes.append((box, rgb)) }
        }
        for box in result.regions { region(box, (40, 90, 230)) }
        // A line is used when it is a book's evidence, or a repeat of one (`Evidence.distinct`).
        let evidence = result.books.flatMap(\.evidence)
        let used = Set(evidence.map(\.box))
        let unusedLines = result.lines.filter { line in
            guard !used.contains(line.box) else { return false }
            let shown = Evidence(line: line, matchScore: nil)
            return !evidence.contains { $0.repeats(shown) }
        }
        // The regions that named a book, in the book's colour (below), over their blue.
        let namedRegions = result.books.map { book in Set(book.evidence.compactMap(\.region)) }
        // Text read but not used drawn thin: a shelf's passes read hundreds of lines of junk.
        let thin = unusedLines.map { ($0.box, (UInt8(150), UInt8(150), UInt8(150))) }
        boxes += result.unidentified.map { ($0.box, (255, 140, 0)) }
        var labels: [PixImage.Label] = []
        var legend = "\(path)  \(result.width)x\(result.height)\n"
        for (rank, book) in result.books.enumerated() {
            let right = verdict?(book)
            let colour: (UInt8, UInt8, UInt8) = right == false ? (230, 0, 0) : (0, 200, 0)
            for box in namedRegions[rank].sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) { region(box, colour) }
            boxes += book.evidence.map { ($0.box, colour) }
            if let label = Self.label(book, rank: rank + 1, rgb: colour) { labels.append(label) }
            let mark = right.map { $0 ? "  [right]" : "  [WRONG]" } ?? ""
            legend += String(format: "%d. %@ (%.2f)%@\n", rank + 1, book.title ?? book.isbn13 ?? "?", book.confidence, mark)
            for e in book.evidence {
                legend += "     \(e.kind.rawValue) \"\(e.text)\" at \(e.box.x),\(e.box.y) \(e.box.width)x\(e.box.height)"
                if let o = e.orientation { legend += " \(o)" }
                if let c = e.ocrConfidence { legend += String(format: " ocr %.0f", c) }
                if let m = e.matchScore { legend += String(format: " match %.2f", m) }
                legend += "\n"
            }
        }
        for u in result.unidentified {
            legend += "unidentified: \"\(u.text)\" at \(u.box.x),\(u.box.y) \(u.box.width)x\(u.box.height)\n"
        }
        if !unusedLines.isEmpty {
            legend += "other text read:\n"
            for l in unusedLines { legend += String(format: "  %3.0f  %@\n", l.confidence, l.text) }
        }
        legend += extraLegend
        let name = path.split(separator: "/").suffix(2).joined(separator: "__")
        let base = (folder as NSString).appendingPathComponent((name as NSString).deletingPathExtension)
        try? loaded.image.annotated(boxes, thin: thin, outlines: outlines, labels: labels).writePNG(to: base + ".png")
        try? Data(legend.utf8).write(to: URL(fileURLWithPath: base + ".txt"))
    }

    /// The book's tag on the picture: its rank (as in the legend) and title, on its largest line
    /// of text, along it (or on its barcode, across).
    static func label(_ book: BookEntity, rank: Int, rgb: (UInt8, UInt8, UInt8)) -> PixImage.Label? {
        let text = book.evidence.filter { $0.kind == .text }.max { $0.box.width * $0.box.height < $1.box.width * $1.box.height }
        guard let anchor = text ?? book.evidence.first else { return nil }
        var title = book.title ?? book.isbn13 ?? "?"
        if title.count > maxLabelLetters { title = title.prefix(maxLabelLetters - 3).trimmingCharacters(in: .whitespaces) + "..." }
        let turns = switch anchor.orientation {
        case "top-to-bottom": 1
        case "bottom-to-top": 3
        default: 0
        }
        return PixImage.Label(text: "\(rank) \(title)", anchor: anchor.box, turns: turns, rgb: rgb)
    }

    /// A title on the picture is cut to this many letters ("...").
    static let maxLabelLetters = 32
}
