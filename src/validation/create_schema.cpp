// The JobSet CRD's OpenAPI schema and CEL rules that the API server applies on CREATE, for front
// ends that run without an API server: the generated schema (crd_schema.h) applied as
// crd_validate.h applies it, then the CRD's CEL rules where the table puts them (cel_rules.h).

#include "cel_rules.h"
#include "crd_validate.h"
#include "jobset_webhook/validation/create.h"
#include "names.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

// The API server's own checks of metadata.name and metadata.generateName for a custom resource.
void check_metadata(MaybeJson metadata, field::ErrorList& errs) {
  const auto path = field::Path("metadata");
  const auto generate_name = string_or_empty(member(metadata, "generateName"));
  const auto name = string_or_empty(member(metadata, "name"));
  if (!generate_name.empty()) {
    for (const auto& msg : name_is_dns_subdomain(generate_name, true)) {
      errs.push_back(
          field::invalid(path.child("generateName"), field::BadValue::string(generate_name), msg));
    }
  }
  if (name.empty() && generate_name.empty()) {
    errs.push_back(field::required(path.child("name"), "name or generateName is required"));
  }
  if (!name.empty()) {
    for (const auto& msg : name_is_dns_subdomain(name, false)) {
      errs.push_back(field::invalid(path.child("name"), field::BadValue::string(name), msg));
    }
  }
}

}  // namespace

field::ErrorList validate_create_schema(JsonView js) {
  field::ErrorList errs;
  check_metadata(member(js, "metadata"), errs);
  // strategy.go Validate: the schema, then ValidateListSetsAndMaps, then the CEL rules, unless an
  // error of a blocking type came first.
  const MaybeJson spec = member(js, "spec");
  if (spec) {
    const CrdSchema& schema = *crd_schema().property("spec");
    const field::Path path("spec");
    for (auto& e : validate_schema(schema, *spec, std::nullopt, path)) errs.push_back(std::move(e));
    for (auto& e : validate_list_sets_and_maps(schema, *spec, path)) errs.push_back(std::move(e));
  }
  if (!cel_blocked(errs)) validate_cel_create(crd_schema(), js, field::Path(), errs);
  return errs;
}

}  // namespace jobset_webhook::validation
