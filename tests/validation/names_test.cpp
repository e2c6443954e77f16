#include "validation/names.h"

#include <catch2/catch.hpp>

namespace v = jobset_webhook::validation;
namespace field = jobset_webhook::field;

namespace {

const std::string kDns1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string kDns1123Subdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and "
    "end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kLabelValue =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and "
    "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

using Messages = std::vector<std::string>;

struct Case {
  std::string value;
  Messages want;
};

}  // namespace

TEST_CASE("DNS-1035 labels: lower-case, start with a letter, at most 63 bytes",
          "[validation][names]") {
  const std::vector<Case> cases = {
      {"a", {}},
      {"my-name", {}},
      {"abc-123", {}},
      {std::string(63, 'a'), {}},
      {std::string(64, 'a'), {"must be no more than 63 characters"}},
      {std::string(64, 'A'), {"must be no more than 63 characters", kDns1035}},
      {"", {kDns1035}},
      {"1abc", {kDns1035}},
      {"abc-", {kDns1035}},
      {"a.b", {kDns1035}},
      {"aBc", {kDns1035}},
      {"abc\n", {kDns1035}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.value) { CHECK(v::is_dns1035_label(c.value) == c.want); }
  }
}

TEST_CASE("DNS-1123 subdomains: dot-separated lower-case labels, at most 253 bytes",
          "[validation][names]") {
  std::string long_valid;
  for (int i = 0; i < 63; ++i) long_valid += "abc.";
  long_valid += "a";  // 253 bytes
  const std::vector<Case> cases = {
      {"example.com", {}},
      {"1a", {}},
      {"a-b.c-d", {}},
      {long_valid, {}},
      {long_valid + "b", {"must be no more than 253 characters"}},
      {"", {kDns1123Subdomain}},
      {"a..b", {kDns1123Subdomain}},
      {".a", {kDns1123Subdomain}},
      {"a.", {kDns1123Subdomain}},
      {"-a", {kDns1123Subdomain}},
      {"a_b", {kDns1123Subdomain}},
      {"InvalidVolumeName", {kDns1123Subdomain}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.value) { CHECK(v::is_dns1123_subdomain(c.value) == c.want); }
  }
}

TEST_CASE("Label values: empty or alphanumeric ends, at most 63 bytes (the message says bytes)",
          "[validation][names]") {
  const std::vector<Case> cases = {
      {"", {}},
      {"MyValue", {}},
      {"my_value.x-1", {}},
      {"12345", {}},
      {std::string(64, 'a'), {"must be no more than 63 bytes"}},
      {"-a", {kLabelValue}},
      {"a_", {kLabelValue}},
      {"a/b", {kLabelValue}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.value) { CHECK(v::is_label_value(c.value) == c.want); }
  }
}

TEST_CASE("Domain-prefixed paths report the part that is wrong", "[validation][names]") {
  const auto path = field::Path("spec").child("managedBy");
  const std::string bad_path =
      R"(Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+'))";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"acme.io/foo", ""},
      {"jobset.sigs.k8s.io/jobset-controller", ""},
      {"acme.io/a/b~c%20;d", ""},
      {"", "spec.managedBy: Required value"},
      {"acme",
       R"(spec.managedBy: Invalid value: "acme": must be a domain-prefixed path (such as "acme.io/foo"))"},
      {"/foo",
       R"(spec.managedBy: Invalid value: "/foo": must be a domain-prefixed path (such as "acme.io/foo"))"},
      {"acme.io/",
       R"(spec.managedBy: Invalid value: "acme.io/": must be a domain-prefixed path (such as "acme.io/foo"))"},
      {"Acme.io/foo", "spec.managedBy: Invalid value: \"Acme.io\": " + kDns1123Subdomain},
      {"acme.io/f o", "spec.managedBy: Invalid value: \"f o\": " + bad_path},
      {"Acme/f o", "[spec.managedBy: Invalid value: \"Acme\": " + kDns1123Subdomain +
                       ", spec.managedBy: Invalid value: \"f o\": " + bad_path + "]"},
  };
  for (const auto& [value, want] : cases) {
    DYNAMIC_SECTION(value) {
      CHECK(field::to_string(v::is_domain_prefixed_path(path, value)) == want);
    }
  }
}

TEST_CASE("generateName is checked with its trailing dash masked, as the API server does",
          "[validation][names]") {
  CHECK(v::name_is_dns_subdomain("my-jobset-", true).empty());
  CHECK(v::name_is_dns_subdomain("my-jobset-", false) == Messages{kDns1123Subdomain});
  CHECK(v::name_is_dns_subdomain("Bad-", true) == Messages{kDns1123Subdomain});
  CHECK(v::name_is_dns_subdomain("js", false).empty());
}

TEST_CASE("A generated name is the prefix cut to 58 bytes plus five characters",
          "[validation][names]") {
  CHECK(v::simulated_generated_name("js-") == "js-xxxxx");
  CHECK(v::simulated_generated_name(std::string(60, 'a')) == std::string(58, 'a') + "xxxxx");
  CHECK(v::is_dns1035_label(v::simulated_generated_name("train-")).empty());
}
