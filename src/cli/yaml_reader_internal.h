#pragma once

// The YAML reader that every YAML input goes through: it builds Json from yaml-cpp's parser events
// as kubectl's reader (sigs.k8s.io/yaml over go-yaml v2) builds them: merge keys (<<) merged and a
// repeated key's last value kept, as go-yaml v2's Unmarshal does. It refuses what that reader
// refuses or would read at random (invalid UTF-8, a merge of anything but mappings, two keys that
// become one JSON member), aliases past a budget, deep nesting, and the inputs on which
// yaml-cpp's YAML::LoadAll never returns. Failure names the source, line and column. Never throws.

#include <string>
#include <string_view>
#include <vector>

#include "documents.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// Every non-empty document of the stream; with keep_marks, where each of its values is written
// (LocatedDocument::marks), else no marks.
Result<std::vector<LocatedDocument>> read_yaml_stream(std::string_view text,
                                                      std::string_view source, bool keep_marks);

}  // namespace jobset_webhook::cli
