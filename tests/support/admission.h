#pragma once

// Test helper: what the server answers, for comparing the offline front ends with it: an
// AdmissionReview (support/review_builder.h) through admission::handle_review.

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

// The response part of what handle_review answers.
inline Json server_response(const Json& review, const Policy& policy, Hook hook) {
  const auto answer = admission::handle_review(review.dump(), policy, hook);
  REQUIRE(answer.ok());
  return Json::parse(answer.value()).at("response");
}

}  // namespace jobset_webhook::testing
