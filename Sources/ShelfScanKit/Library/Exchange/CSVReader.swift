/// RFC 4180 CSV: fields separated by commas, quoted with `"` when they hold commas, quotes
/// (doubled) or line breaks. Also reads CRLF files and a leading byte-order mark.
public enum CSVReader {
    public static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var inQuotes = false
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        var fieldStarted = false
        while i < chars.count {
            let c = chars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < chars.count && chars[i + 1] == "\"" { field.unicodeScalars.append("\""); i += 1 } else { inQuotes = false }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else {
                switch c {
                case "\"" where field.isEmpty: inQuotes = true; fieldStarted = true
                case ",": row.append(field); field = ""; fieldStarted = false
                case "\r": break
                case "\n":
                    row.append(field)
                    if !(row.count == 1 && row[0].isEmpty && !fieldStarted) { rows.append(row) }
                    row = []; field = ""; fieldStarted = false
                default: field.unicodeScalars.append(c); fieldStarted = true
                }
            }
            i += 1
        }
        if !field.isEmpty || !row.isEmpty || fieldStarted { row.append(field); rows.append(row) }
        return rows
    }
}
