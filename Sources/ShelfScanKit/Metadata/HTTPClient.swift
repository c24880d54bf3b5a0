import CCurl
import Foundation

/// One HTTP response.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// Header names in lower case; the last value wins.
    public let headers: [String: String]
    public let body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Blocking HTTP GET over libcurl, run off the cooperative thread pool.
/// The corresponding C function is `curl_easy_perform`.
public struct HTTPClient: Sendable {
    public var userAgent: String
    /// Seconds to establish a connection, and for the whole exchange.
    public var connectTimeout: Double = 5
    public var totalTimeout: Double = 20
    /// Larger bodies are cut off with an error instead of filling memory.
    public var maxBodyBytes = 8 << 20

    public init(userAgent: String) {
        self.userAgent = userAgent
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Fetches `url`. Transport failures (no network, timeout, oversized body) throw `.network`;
    /// any HTTP status is returned, for the caller to judge.
    public func get(_ url: String, accept: String = "application/json") async throws(ShelfScanError) -> HTTPResponse {
        let result: Result<HTTPResponse, ShelfScanError> = await withCheckedContinuation { continuation in
            // A thread of its own: a hung server must not hold one of the few threads Dispatch
            // and the cooperative pool share on a two-core machine.
            let thread = Thread {
                do throws(ShelfScanError) {
                    continuation.resume(returning: .success(try self.getBlocking(url, accept: accept)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return try result.get()
    }

    /// Collects one transfer's body and headers; passed to curl's callbacks as their context.
    private final class Transfer {
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    func getBlocking(_ url: String, accept: String) throws(ShelfScanError) -> HTTPResponse {
        _ = Self.globalInit
        guard let handle = curl_easy_init() else { throw ShelfScanError(.network, "\(url): cannot start an HTTP transfer") }
        defer { curl_easy_cleanup(handle) }
        let transfer = Transfer(limit: maxBodyBytes)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let headerList = curl_slist_append(nil, "Accept: \(accept)")
        defer { curl_slist_free_all(headerList) }

        shelfscan_curl_set_string(handle, CURLOPT_URL, url)
        shelfscan_curl_set_string(handle, CURLOPT_USERAGENT, userAgent)
        shelfscan_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        shelfscan_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        shelfscan_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        shelfscan_curl_set_long(handle, CURLOPT_MAXREDIRS, 5)
        shelfscan_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        shelfscan_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
        shelfscan_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(totalTimeout * 1000))
        shelfscan_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        shelfscan_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
        shelfscan_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        shelfscan_curl_set_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard transfer.body.count + n <= transfer.limit else {
                transfer.overflowed = true
                return 0  // makes curl stop with CURLE_WRITE_ERROR
            }
            if let data { transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n)) }
            return n
        }
        shelfscan_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        shelfscan_curl_set_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard let data else { return n }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                transfer.headers = [:]  // a new response (after a redirect)
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                transfer.headers[name] = value
            }
            return n
        }

        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            if transfer.overflowed {
                throw ShelfScanError(.network, "\(Self.host(url)): response larger than \(maxBodyBytes >> 20) MB; refused")
            }
            throw ShelfScanError(.network, "\(Self.host(url)): \(Self.describe(code, timeout: totalTimeout))")
        }
        var status = 0
        shelfscan_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    private static func describe(_ code: CURLcode, timeout: Double) -> String {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return "no answer within \(String(format: "%g", timeout)) s; try again later"
        case CURLE_COULDNT_RESOLVE_HOST: return "host not found (offline? use --offline to skip lookups)"
        case CURLE_COULDNT_CONNECT: return "connection refused or unreachable (offline? use --offline to skip lookups)"
        default: return String(cString: curl_easy_strerror(code))
        }
    }

    /// The host part of a URL, for messages.
    static func host(_ url: String) -> String {
        URLComponents(string: url)?.host.map { host in
            URLComponents(string: url)?.port.map { "\(host):\($0)" } ?? host
        } ?? url
    }
}
