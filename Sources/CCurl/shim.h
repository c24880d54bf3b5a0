#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one
// fixed-argument wrapper per argument type.
static inline CURLcode shelfscan_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode shelfscan_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode shelfscan_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*shelfscan_curl_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode shelfscan_curl_set_callback(CURL *handle, CURLoption option, shelfscan_curl_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode shelfscan_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
