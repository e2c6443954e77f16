#pragma once

// apimachinery's name and value checks (k8s.io/apimachinery v0.36 pkg/util/validation and
// pkg/api/validate/content), with their exact messages. Each returns the messages in
// apimachinery's order (length first, then format); empty when the value is valid. Lengths are
// counted in bytes, as Go's len() counts them. Matching is by hand, not std::regex: the inputs
// are attacker-controlled and the patterns are simple.

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/path.h"

namespace jobset_webhook::validation {

inline constexpr std::size_t kDns1035LabelMaxLength = 63;
inline constexpr std::size_t kDns1123SubdomainMaxLength = 253;
inline constexpr std::size_t kLabelValueMaxLength = 63;

// "must be no more than 63 characters": what upstream JobSet looks for to shorten the message.
std::string max_len_error(std::size_t length);

// RFC 1035 label: at most 63 bytes of [a-z]([-a-z0-9]*[a-z0-9])?
std::vector<std::string> is_dns1035_label(std::string_view value);

// RFC 1123 subdomain: at most 253 bytes, dot-separated RFC 1123 labels.
std::vector<std::string> is_dns1123_subdomain(std::string_view value);

// A label value: empty, or at most 63 bytes of (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?
// Its length message says "bytes" (apimachinery's content package), not "characters".
std::vector<std::string> is_label_value(std::string_view value);

// "acme.io/foo": a DNS-1123 subdomain, a slash, and a non-empty HTTP path. The errors name path;
// like apimachinery, a bad host is reported with the host as its value, a bad path with the path.
field::ErrorList is_domain_prefixed_path(const field::Path& path, std::string_view value);

// The API server's check of metadata.name (prefix false) and metadata.generateName (prefix
// true, a trailing '-' is allowed): NameIsDNSSubdomain.
std::vector<std::string> name_is_dns_subdomain(std::string_view name, bool prefix);

// The name the API server will give an object created with metadata.generateName: the prefix cut
// to 58 bytes plus 5 random characters. The characters are fixed here ("xxxxx", from the
// generator's alphabet) so that the same input always gets the same answer; validity and length
// do not depend on which characters they are.
std::string simulated_generated_name(std::string_view generate_name);

}  // namespace jobset_webhook::validation
