#pragma once

// The `default:`s of the JobSet CRD's structural schema below spec, as the generated schema
// (src/validation/crd_schema.h) holds them, for the defaulting layer, which applies them as the API
// server does while decoding.

#include <string>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

// One `default:`: a dotted path from the JobSet's root ("spec.replicatedJobs[].groupName"; a
// segment ending in [] stands for every entry of that list) and its value.
struct SchemaDefault {
  std::string path;
  Json value;
};

// Every default below spec, in the schema's order (properties by name). Thread-safe.
const std::vector<SchemaDefault>& schema_defaults();

}  // namespace jobset_webhook::validation
