#pragma once

// A warning as data, like a field error: the field it is about and its words. The core keeps the
// field, so that a report can place a warning at the field without reading its words; a response
// carries only the words (texts), which are what the API server passes on to the client.

#include <string>
#include <vector>

#include "jobset_webhook/field/path.h"

namespace jobset_webhook::field {

struct Warning {
  std::string field;  // printed path ("spec.replicatedJobs[1].replicas"); empty: the whole object
  std::string text;   // what response.warnings carries, byte for byte
};

using WarningList = std::vector<Warning>;

// A warning about the field at path.
Warning warning(const Path& path, std::string text);
// A warning about the whole object, such as a count of warnings left out.
Warning object_warning(std::string text);

// The words of each warning, in order: an AdmissionReview response's `warnings`.
std::vector<std::string> texts(const WarningList& warnings);

}  // namespace jobset_webhook::field
