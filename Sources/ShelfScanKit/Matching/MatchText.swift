import Foundation

/// Text reduced to what the matcher compares: lower case, no diacritics, letters and digits only,
/// split into words. Titles are further split into the part a spine must show (the core) and the
/// parts it may show (subtitle, series, parentheticals), with a leading article dropped.
public enum MatchText {
    /// A title (or spine) as the matcher sees it.
    public struct Title: Equatable, Sendable {
        /// The words a spine should show: before any colon, without parentheticals or a leading article.
        public var core: [String]
        /// Words that may also appear: subtitle, series name and number, a statement of responsibility.
        public var extra: [String]
        /// The numbers of the subtitle (after a colon, not in parentheses): "Walking the Munros:
        /// Vol 2" is another book than "...: Vol 1", though its core words are the same.
        public var volume: [String] = []

        /// The core words, with the volume: one work whatever the edition or series marker.
        public var work: String {
            (core.filter { $0 != "and" } + volume.map { "#" + $0 }).joined(separator: " ")
        }
    }

    /// Words of `text`: case and diacritics folded, punctuation a separator, apostrophes joining
    /// ("Lisey's" is `liseys`) except after a single-letter elision ("L'ombra" is `l ombra`).
    /// Digits that OCR reads for letters inside a word are read back as letters (`B00K` is `book`).
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current: [Unicode.Scalar] = []
        func flush() {
            guard !current.isEmpty else { return }
            words.append(canonical(current))
            current.removeAll(keepingCapacity: true)
        }
        // "C++" is a word of its own, not "C" ("The C++ Programming Language").
        let text = find("++", in: text, from: text.startIndex) != nil ? text.replacingOccurrences(of: "++", with: "pp") : text
        for scalar in text.unicodeScalars {
            if scalar == "'" || scalar == "\u{2019}" || scalar == "`" || scalar == "\u{2018}" {
                // A single-letter elision starts a new word; elsewhere the apostrophe just vanishes.
                if current.count == 1 { flush() }
                continue
            }
            // ASCII, most of every title and name, without `fold`'s array per letter.
            let v = scalar.value
            if v < 128 {
                switch v {
                case 0x61...0x7A, 0x30...0x39: current.append(scalar)
                case 0x41...0x5A: current.append(Unicode.Scalar(UInt8(v + 32)))
                default: flush()
                }
                continue
            }
            if scalar == "\u{B7}" { continue } // Catalan l·l is one word
            let folded = fold(scalar)
            if folded.isEmpty { flush(); continue }
            current.append(contentsOf: folded)
        }
        flush()
        return words
    }

    /// `title(_:subtitle:)`, remembered: a photo's matching asks it of the same few hundred
    /// books again and again (each candidate's identity and work, at every pass), at several
    /// microseconds a time. The index, which asks it once of every book, does not come here.
    public static func rememberedTitle(_ title: String, subtitle: String? = nil) -> Title {
        // Marked, and the title's length before a subtitle: no two (title, subtitle) pairs share a key.
        let key = subtitle.map { "s\(title.utf8.count):" + title + $0 } ?? "t" + title
        return titles.value(for: key) { Self.title(title, subtitle: subtitle) }
    }
    private static let titles = Remembered<Title>(capacity: 20_000)

    /// A title's core and extra words. `subtitle` (a field of its own in the library) is extra.
    public static func title(_ title: String, subtitle: String? = nil) -> Title {
        var main = ""
        var extraText = subtitle.map { $0 + " " } ?? ""
        // Parentheticals and brackets are series markers ("(Harry Potter, #1)") or editions.
        var depth = 0
        for ch in title {
            switch ch {
            case "(", "[", "{": depth += 1; extraText.append(" ")
            case ")", "]", "}": depth = max(0, depth - 1); extraText.append(" ")
            default: if depth > 0 { extraText.append(ch) } else { main.append(ch) }
            }
        }
        // The subtitle (after a colon), and a catalogue's statement of responsibility (after " / ")
        // or parallel title (after " = ").
        var cut = main.endIndex
        for separator in [":", " / ", " = ", " ; "] {
            if let r = find(separator, in: main, from: main.startIndex), r.lowerBound < cut { cut = r.lowerBound }
        }
        // A full stop after a word of four letters or more, before a capital, ends the title as a
        // colon would ("Gedeelde Ruimte. Het Waddengebied in dertig ontmoetingen": 101 titles of
        // the 25k in the two catalogues); not "Mr. Mercedes", "The A.B.C. Murders" or "1Q84. Llibres".
        if Self.periodSubtitles {
            var search = main.startIndex
            while let r = find(". ", in: main, from: search), r.lowerBound < cut {
                let before = main[..<r.lowerBound].reversed().prefix { $0.isLetter }
                if before.count >= 4, let next = main[r.upperBound...].first, next.isUppercase { cut = r.lowerBound; break }
                search = r.upperBound
            }
        }
        var core = words(String(main[..<cut]))
        extraText += " " + main[cut...]
        var extra = words(extraText)
        // Numbers after " / " or " = " are of a statement or a second title ("Animal Farm / 1984").
        let afterColon = main[cut...].hasPrefix(":") ? String(main[cut...].prefix { !"/=;".contains($0) }) : ""
        let volume = core.isEmpty ? [] : words((subtitle ?? "") + " " + afterColon).filter { $0.allSatisfy(\.isNumber) }
        if core.isEmpty { core = words(main); extra = words(extraText) }
        if core.isEmpty { core = words(title) }
        if core.count > 1, articles.contains(core[0]) { extra.append(core.removeFirst()) }
        return Title(core: core, extra: extra, volume: volume)
    }

    /// `SHELFSCAN_PERIOD_SUBTITLE=off`: a title's subtitle starts only after a colon (as before 2026-11-25).
    static let periodSubtitles = ProcessInfo.processInfo.environment["SHELFSCAN_PERIOD_SUBTITLE"] != "off"

    /// A subtitle that a spine may print in place of its title ("The pi-calculus: A Theory of
    /// Mobile Processes", its main title set as a logo): the subtitle's words (the `subtitle`
    /// field's, else those after the title's first colon, to the next separator or bracket),
    /// without a leading article, when three or more of them are words of three letters or more
    /// that are not common ones. Empty otherwise (no subtitle, or a generic one such as "A Novel").
    /// `telling`: the telling words needed (`subtitleWords`; `ownedSubtitleWords` for the
    /// reader's own books).
    public static func subtitleTitle(_ title: String, subtitle: String?, telling least: Int? = nil) -> [String] {
        var text: String
        if let subtitle, !subtitle.trimmingCharacters(in: .whitespaces).isEmpty {
            text = subtitle
        } else {
            guard let colon = title.firstIndex(of: ":") else { return [] }
            text = String(title[title.index(after: colon)...])
            for stop in [" / ", " = ", " ; ", ":", "(", "["] {
                if let r = find(stop, in: text, from: text.startIndex) { text = String(text[..<r.lowerBound]) }
            }
        }
        var w = words(text)
        if w.count > 1, articles.contains(w[0]) { w.removeFirst() }
        return tellingWords(w) >= max(1, least ?? subtitleWords) ? w : []
    }

    /// The words of `words` that say something: three letters or more, not common, not a number.
    static func tellingWords(_ words: [String]) -> Int {
        words.filter { $0.count >= 3 && !commonWords.contains($0) && !$0.allSatisfy(\.isNumber) }.count
    }

    /// Telling words a subtitle needs to stand for its book (`subtitleTitle`); 0 turns it off
    /// (`SHELFSCAN_SUBTITLE_WORDS`).
    static let subtitleWords = Int(ProcessInfo.processInfo.environment["SHELFSCAN_SUBTITLE_WORDS"] ?? "") ?? 3
    /// The same for the reader's own books (`SHELFSCAN_OWNED_SUBTITLE_WORDS`): a spine printing
    /// its subtitle alone is likelier one of theirs than one of a catalogue's thousands ("The
    /// Leader Project: Fiasco or Triumph?" read as "Fiasco or Triumph?" named the catalogue's
    /// *Fiasco*). Never more than `subtitleWords`.
    static let ownedSubtitleWords = min(subtitleWords, Int(ProcessInfo.processInfo.environment["SHELFSCAN_OWNED_SUBTITLE_WORDS"] ?? "") ?? 2)

    /// Author name words, without life dates ("Bunge, Mario, 1919-2020" is `bunge mario`).
    public static func authorWords(_ name: String) -> [String] {
        words(name).filter { !$0.allSatisfy(\.isNumber) }
    }

    /// Leading articles of English, Spanish, Catalan, Dutch, French and German (folded: `l` is L').
    public static let articles: Set<String> = [
        "the", "a", "an",
        "el", "la", "los", "las", "lo", "un", "una", "unos", "unas",
        "els", "les", "l", "uns", "unes",
        "de", "het", "een", "t",
        "le", "une", "des",
        "der", "die", "das", "ein", "eine", "einen", "einem", "einer", "den", "dem",
    ]

    /// Words too common to say which book a spine is: articles, prepositions, conjunctions.
    public static let commonWords: Set<String> = articles.union([
        "of", "and", "in", "on", "to", "for", "with", "at", "by", "from", "is", "it", "its", "my", "your", "as", "or", "be",
        "y", "e", "i", "o", "del", "al", "en", "con", "por", "para", "que", "sin", "se", "su", "sus", "mi",
        "amb", "per", "i", "dels", "pel",
        "van", "op", "met", "voor",
        "du", "au", "aux", "et", "sur", "pour", "dans",
        "und", "von", "zu", "im", "mit", "auf", "vom", "zum",
    ])

    /// Words printed on spines that are not the title or author: publishers and imprints.
    /// They weigh little when a match is judged by how much of the spine it explains.
    public static let publisherWords: Set<String> = [
        "penguin", "vintage", "books", "book", "press", "classics", "classic", "random", "house", "harper", "collins",
        "harpercollins", "pan", "macmillan", "picador", "corgi", "bantam", "arrow", "orion", "hodder", "faber",
        "headline", "sphere", "abacus", "virago", "puffin", "scholastic", "bloomsbury", "simon", "schuster", "oxford",
        "university", "edition", "editions", "novel", "anagrama", "planeta", "alfaguara", "destino", "debolsillo",
        "tusquets", "columna", "empuries", "edicions", "ediciones", "editorial", "folio", "gallimard", "livre", "poche",
        "verlag", "fischer", "rowohlt", "dtv", "signet", "ballantine", "tor", "doubleday", "anchor", "knopf", "wordsworth",
        "everyman", "library", "paperback", "paperbacks", "modern", "black", "swan", "mariner", "ace", "daw", "gollancz",
        "transworld", "minotauro", "salamandra", "booket", "austral", "catedra", "alianza", "seix", "barral", "proa",
        // Paperback imprints whose logos stand alone on older spines ("PANTHER", "GRANADA" on Le
        // Guin's; "Piccolo" under Lorna Hill's), and a few newer ones.
        "panther", "granada", "fontana", "coronet", "futura", "mayflower", "grafton", "flamingo", "paladin",
        "sceptre", "mandarin", "minerva", "methuen", "heinemann", "hutchinson", "chatto", "windus", "hamlyn",
        "ladybird", "usborne", "pelican", "plume", "scribner", "putnam", "berkley", "fawcett", "quercus",
        "canongate", "granta", "piccolo", "armada", "tandem", "dell", "avon", "jove", "zebra", "onyx", "roc",
        "baen", "orbit", "voyager", "harlequin", "mills", "boon",
    ]

    // MARK: Folding

    /// One scalar folded: lower case, without diacritics; empty for a separator.
    static func fold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        let v = scalar.value
        if v < 128 {
            switch v {
            case 0x61...0x7A, 0x30...0x39: return [scalar]
            case 0x41...0x5A: return [Unicode.Scalar(v + 32)!]
            default: return []
            }
        }
        if let mapped = latinFolds[v] { return mapped }
        let p = scalar.properties
        guard p.isAlphabetic || p.numericType != nil else { return [] }
        if p.generalCategory == .nonspacingMark { return [] }
        return Array(p.lowercaseMapping.unicodeScalars)
    }

    /// Latin-1 and Latin Extended-A letters folded once with Foundation (diacritics, ß, æ...).
    static let latinFolds: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        for v in UInt32(0xC0)...UInt32(0x24F) {
            guard let s = Unicode.Scalar(v), s.properties.isAlphabetic else { continue }
            let folded = String(s).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            table[v] = Array(folded.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic })
        }
        table[0xDF] = ["s", "s"]
        table[0xE6] = ["a", "e"]; table[0xC6] = ["a", "e"]
        table[0x153] = ["o", "e"]; table[0x152] = ["o", "e"]
        table[0xF8] = ["o"]; table[0xD8] = ["o"]
        table[0x142] = ["l"]; table[0x141] = ["l"]
        return table
    }()

    /// The first `needle` (ASCII) in `text` at or after `start`, compared byte by byte: Foundation's
    /// `range(of:)` goes through `NSString` on Linux, and titles are normalised by the 100,000.
    static func find(_ needle: String, in text: String, from start: String.Index) -> Range<String.Index>? {
        let bytes = Array(needle.utf8)
        guard let first = bytes.first else { return nil }
        let utf8 = text.utf8
        var i = start.samePosition(in: utf8) ?? start
        while i < utf8.endIndex {
            if utf8[i] == first {
                var j = utf8.index(after: i), k = 1
                while k < bytes.count, j < utf8.endIndex, utf8[j] == bytes[k] { j = utf8.index(after: j); k += 1 }
                if k == bytes.count { return i..<j }
            }
            i = utf8.index(after: i)
        }
        return nil
    }

    /// Digits read back as the letters OCR mistook them for.
    static func canonical(_ scalars: [Unicode.Scalar]) -> String {
        var s = scalars
        var letters = 0
        for c in s {
            let v = c.value
            if v < 128 ? (0x61...0x7A).contains(v) || (0x41...0x5A).contains(v) : c.properties.isAlphabetic { letters += 1 }
        }
        if letters >= 1, letters < s.count, 2 * letters >= s.count {
            // A word that is mostly letters: its digits are misread letters.
            s = s.map { c in
                switch c {
                case "0": "o"
                case "1": "l"
                case "5": "s"
                default: c
                }
            }
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s)
        return String(out)
    }
}

/// Values worked out from a string, remembered, for any thread; forgotten all at once when
/// `capacity` are held (a batch of photos meets new books without end).
/// `@unchecked Sendable`: `known` is only touched under `lock`.
final class Remembered<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var known: [String: Value] = [:]
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func value(for key: String, _ make: () -> Value) -> Value {
        lock.lock()
        if let value = known[key] { lock.unlock(); return value }
        lock.unlock()
        let value = make()
        lock.lock()
        if known.count >= capacity { known.removeAll(keepingCapacity: true) }
        known[key] = value
        lock.unlock()
        return value
    }
}
