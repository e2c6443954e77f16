#pragma once

// Test helper: what the server answers, for comparing the offline front ends with it. Builds the
// AdmissionReview a kube-apiserver would send and goes through admission::handle_review.

#include <string>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::testing {

inline std::string base64_decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int bits = 0;
  unsigned value = 0;
  for (const char c : in) {
    if (c == '=') break;
    const auto pos = kAlphabet.find(c);
    REQUIRE(pos != std::string::npos);
    value = (value << 6) | static_cast<unsigned>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((value >> bits) & 0xFF);
    }
  }
  return out;
}

// The AdmissionReview v1 the API server sends for this JobSet.
inline Json admission_review(const std::string& operation, const Json& object,
                             const Json& old_object = nullptr) {
  const auto& metadata = object.at("metadata");
  Json request = {
      {"uid", "00000000-0000-0000-0000-000000000001"},
      {"kind", {{"group", "jobset.x-k8s.io"}, {"version", "v1alpha2"}, {"kind", "JobSet"}}},
      {"resource",
       {{"group", "jobset.x-k8s.io"}, {"version", "v1alpha2"}, {"resource", "jobsets"}}},
      {"name", metadata.value("name", "")},
      {"namespace", metadata.value("namespace", "default")},
      {"operation", operation},
      {"object", object}};
  if (!old_object.is_null()) request["oldObject"] = old_object;
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

// The response part of what handle_review answers.
inline Json server_response(const Json& review, const Policy& policy, Hook hook) {
  const auto answer = admission::handle_review(review.dump(), policy, hook);
  REQUIRE(answer.ok());
  return Json::parse(answer.value()).at("response");
}

}  // namespace jobset_webhook::testing
