#include "request_checks.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

#include "jobset_webhook/json.h"
#include "jobset_webhook/runtime/duration.h"

namespace jobset_webhook::server {
namespace {

// A method or media type the server does not read: kUnimplemented, with the HTTP status that
// tells them apart (405 Method Not Allowed, 415 Unsupported Media Type) kept beside it.
Failure not_offered(int status, std::string message) {
  return Failure{StatusCode::kUnimplemented, std::move(message), status};
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

std::string json_quoted(std::string_view s) {
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return ascii_lower(x) == ascii_lower(y);
         });
}

// The headers the checks read, found in one pass over the head: httplib's own lookups compare
// names through tolower, a library call per character, and the checks needed a dozen of them.
struct HeadFields {
  const std::string* content_encoding = nullptr;  // the first of each, as httplib would find it
  const std::string* content_type = nullptr;
  const std::string* transfer_encoding = nullptr;
  const std::string* content_length = nullptr;
  bool conflicting_lengths = false;  // a later Content-Length says otherwise
};

HeadFields fields_of(const httplib::Request& req) {
  HeadFields f;
  const auto first = [](const std::string*& field, const std::string& value) {
    if (field == nullptr) field = &value;
  };
  for (const auto& [name, value] : req.headers) {
    if (equals_ignoring_case(name, "Content-Type")) {
      first(f.content_type, value);
    } else if (equals_ignoring_case(name, "Content-Length")) {
      if (f.content_length != nullptr && *f.content_length != value) f.conflicting_lengths = true;
      first(f.content_length, value);
    } else if (equals_ignoring_case(name, "Content-Encoding")) {
      first(f.content_encoding, value);
    } else if (equals_ignoring_case(name, "Transfer-Encoding")) {
      first(f.transfer_encoding, value);
    }
  }
  return f;
}

bool is_chunked(const HeadFields& f) {
  return f.transfer_encoding != nullptr && lower_trimmed(*f.transfer_encoding) == "chunked";
}

// A request with neither Content-Length nor chunked encoding has no body (RFC 9112 6.3).
bool body_follows(const HeadFields& f) {
  return is_chunked(f) || (f.content_length != nullptr && !f.content_length->empty() &&
                           f.content_length->find_first_not_of('0') != std::string::npos);
}

// The media type of a Content-Type value, without parameters: "application/json; charset=utf-8"
// is application/json.
std::string media_type(std::string_view content_type) {
  return lower_trimmed(content_type.substr(0, content_type.find(';')));
}

}  // namespace

Result<RequestHead> check_request_head(const httplib::Request& req, std::size_t max_request_bytes) {
  if (req.path != kValidatePath && req.path != kMutatePath && req.path != kValidateScalerPath) {
    return not_found("no webhook at " + req.path + "; the webhooks are " +
                     std::string(kValidatePath) + ", " + std::string(kMutatePath) + " and " +
                     std::string(kValidateScalerPath));
  }
  if (req.method != "POST")
    return not_offered(405, "method " + req.method + " is not allowed; use POST");

  const HeadFields fields = fields_of(req);
  const auto encoding =
      fields.content_encoding != nullptr ? lower_trimmed(*fields.content_encoding) : "";
  if (!encoding.empty() && encoding != "identity") {
    return not_offered(415, "Content-Encoding " + json_quoted(encoding) +
                                " is not supported; send the body uncompressed");
  }
  if (fields.content_type == nullptr)
    return not_offered(415, "Content-Type must be application/json, got none");
  if (media_type(*fields.content_type) != "application/json") {
    const std::string got = json_quoted(*fields.content_type);
    return not_offered(415, "Content-Type must be application/json, got " + got);
  }

  RequestHead head;
  const bool chunked = is_chunked(fields);
  if (fields.transfer_encoding != nullptr && !chunked) {
    return invalid_argument("Transfer-Encoding " + json_quoted(*fields.transfer_encoding) +
                            " is not supported");
  }
  if (fields.content_length != nullptr) {
    if (chunked)
      return invalid_argument("a request may not have both Content-Length and Transfer-Encoding");
    if (fields.conflicting_lengths) return invalid_argument("conflicting Content-Length headers");
    const std::string& text = *fields.content_length;
    std::uint64_t length = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (text.empty() || end != text.data() + text.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return invalid_argument("Content-Length " + json_quoted(text) + " is not a number of bytes");
    }
    if (ec == std::errc::result_out_of_range || length > max_request_bytes) {
      return resource_exhausted("request body of " + text + " bytes is larger than the limit of " +
                                std::to_string(max_request_bytes) + " bytes");
    }
    head.content_length = length;
  }
  head.has_body = body_follows(fields);

  if (req.has_param("timeout")) {
    const auto text = req.get_param_value("timeout");
    const auto timeout = runtime::parse_go_duration(text);
    if (!timeout || timeout->count() <= 0) {
      return invalid_argument(
          "timeout query parameter must be a positive duration such as 10s, got " +
          json_quoted(text));
    }
    // The kube-apiserver sends at most 30s; a cap keeps "now + timeout" far from overflowing.
    head.timeout = std::min<std::chrono::nanoseconds>(*timeout, std::chrono::hours(24));
  }
  return head;
}

bool has_body(const httplib::Request& req) { return body_follows(fields_of(req)); }

std::string error_body(const Failure& failure) {
  Json body = Json::object();
  body["code"] = http_status(failure);
  body["message"] = failure.message;
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace jobset_webhook::server
