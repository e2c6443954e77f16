#pragma once

// Reading what users hand the CLI: files or stdin, YAML or JSON, converted to Json here and
// nowhere else (the core never sees YAML).

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// The whole content of a file, or of stdin for "-". Failure names the path and the OS error.
Result<std::string> read_input(const std::string& path);

// Every document of a YAML stream (JSON is YAML too), converted to JSON with YAML 1.2 core-schema
// scalars: true/false, null/~, integers and floats untagged, anything quoted stays a string.
// Refused, as Kubernetes' YAML reader refuses them or would read them differently: invalid UTF-8,
// duplicate mapping keys, merge keys (<<), non-scalar keys, nesting deeper than 512 levels, and
// aliases that expand the stream past its size plus 10,000 values. Failure names the source and
// the line and column ("f.yaml:3:1: duplicate key "a""). Never throws.
Result<std::vector<Json>> parse_yaml_documents(std::string_view text, std::string_view source);

// The policy file (YAML or JSON) at path, checked by parse_policy.
Result<Policy> load_policy_file(const std::string& path);

}  // namespace jobset_webhook::cli
