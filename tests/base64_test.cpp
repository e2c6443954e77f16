#include "jobset_webhook/base64.h"

#include <catch2/catch.hpp>
#include <string>

using jobset_webhook::base64_decode;
using jobset_webhook::base64_encode;

TEST_CASE("base64 is written with padding, as Go's StdEncoding writes it", "[base64]") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("h") == "aA==");
  CHECK(base64_encode("he") == "aGU=");
  CHECK(base64_encode("hello") == "aGVsbG8=");
  CHECK(base64_encode(std::string("\xff\xfe\x00", 3)) == "//4A");
}

TEST_CASE("base64 is read strictly, whitespace and missing padding aside", "[base64]") {
  CHECK(base64_decode("aGVsbG8=").value() == "hello");
  CHECK(base64_decode("aGVs\nbG8").value() == "hello");
  CHECK_FALSE(base64_decode("a$b").ok());
  CHECK_FALSE(base64_decode("a").ok());
  CHECK_FALSE(base64_decode("aGU=bG8").ok());  // data after padding
  const std::string bytes("\x00\x01\x80\xff pem", 8);
  CHECK(base64_decode(base64_encode(bytes)).value() == bytes);
}
