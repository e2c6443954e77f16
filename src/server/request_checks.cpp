#include "jobset_webhook/server/request_checks.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

#include "jobset_webhook/json.h"
#include "jobset_webhook/server/duration.h"

namespace jobset_webhook::server {
namespace {

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string json_quoted(std::string_view s) {
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool is_chunked(const httplib::Request& req) {
  return lower_trimmed(req.get_header_value("Transfer-Encoding")) == "chunked";
}

// The media type of a Content-Type value, without parameters: "application/json; charset=utf-8"
// is application/json.
std::string media_type(std::string_view content_type) {
  return lower_trimmed(content_type.substr(0, content_type.find(';')));
}

}  // namespace

std::optional<Failure> check_request_head(const httplib::Request& req,
                                          std::size_t max_request_bytes) {
  if (req.path != kValidatePath && req.path != kMutatePath) {
    return Failure{404, "no webhook at " + req.path + "; the webhooks are " +
                            std::string(kValidatePath) + " and " + std::string(kMutatePath)};
  }
  if (req.method != "POST")
    return Failure{405, "method " + req.method + " is not allowed; use POST"};

  const auto encoding = lower_trimmed(req.get_header_value("Content-Encoding"));
  if (!encoding.empty() && encoding != "identity") {
    return Failure{415, "Content-Encoding " + json_quoted(encoding) +
                            " is not supported; send the body uncompressed"};
  }
  if (!req.has_header("Content-Type"))
    return Failure{415, "Content-Type must be application/json, got none"};
  const auto type = req.get_header_value("Content-Type");
  if (media_type(type) != "application/json") {
    return Failure{415, "Content-Type must be application/json, got " + json_quoted(type)};
  }

  const bool chunked = is_chunked(req);
  if (req.has_header("Transfer-Encoding") && !chunked) {
    return Failure{400, "Transfer-Encoding " +
                            json_quoted(req.get_header_value("Transfer-Encoding")) +
                            " is not supported"};
  }
  if (req.has_header("Content-Length")) {
    if (chunked)
      return Failure{400, "a request may not have both Content-Length and Transfer-Encoding"};
    const auto count = req.get_header_value_count("Content-Length");
    const auto text = req.get_header_value("Content-Length");
    for (std::size_t i = 1; i < count; ++i) {
      if (req.get_header_value("Content-Length", i) != text)
        return Failure{400, "conflicting Content-Length headers"};
    }
    std::uint64_t length = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (text.empty() || end != text.data() + text.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      return Failure{400, "Content-Length " + json_quoted(text) + " is not a number of bytes"};
    }
    if (ec == std::errc::result_out_of_range || length > max_request_bytes) {
      return Failure{413, "request body of " + text + " bytes is larger than the limit of " +
                              std::to_string(max_request_bytes) + " bytes"};
    }
  }

  if (req.has_param("timeout")) {
    const auto text = req.get_param_value("timeout");
    const auto timeout = parse_go_duration(text);
    if (!timeout || timeout->count() <= 0) {
      return Failure{400, "timeout query parameter must be a positive duration such as 10s, got " +
                              json_quoted(text)};
    }
  }
  return std::nullopt;
}

std::optional<std::chrono::nanoseconds> request_timeout(const httplib::Request& req) {
  if (!req.has_param("timeout")) return std::nullopt;
  const auto timeout = parse_go_duration(req.get_param_value("timeout"));
  if (!timeout) return std::nullopt;
  // The kube-apiserver sends at most 30s; a cap keeps "now + timeout" far from overflowing.
  return std::min<std::chrono::nanoseconds>(*timeout, std::chrono::hours(24));
}

bool has_body(const httplib::Request& req) {
  if (is_chunked(req)) return true;
  const auto text = req.get_header_value("Content-Length");
  return !text.empty() && text.find_first_not_of('0') != std::string::npos;
}

std::string error_body(const Failure& failure) {
  Json body = Json::object();
  body["code"] = failure.code;
  body["message"] = failure.message;
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace jobset_webhook::server
