// apiserver::create_defaults against the server: what the cluster stores of each fixture JobSet
// (and each upstream example) is the CRD's schema defaults, then the mutating webhook's patch. The
// manifests are YAML, which only the CLI reads (the core reads no YAML): an edge test.

#include "jobset_webhook/apiserver/apiserver.h"

#include <catch2/catch.hpp>

#include "cli/manifests.h"
#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"
#include "support/admission.h"
#include "support/files.h"
#include "support/review_builder.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;

namespace {

// What create_defaults stores for every JobSet under root, against the schema defaults and then
// the server's mutating patch.
void stored_is_schema_then_mutating_defaults(const std::string& root, std::size_t min_jobsets) {
  std::size_t jobsets = 0;
  for (const auto& file : jobset_webhook::testing::yaml_files(root)) {
    const auto manifests = cli::load_manifests({file});
    REQUIRE(manifests.ok());
    for (const auto& js : manifests.value().jobsets) {
      DYNAMIC_SECTION(file << " " << js.display_name()) {
        Json want = js.object;
        jobset_webhook::apiserver::apply_crd_defaults(want);
        const auto response = jobset_webhook::testing::server_response(
            jobset_webhook::testing::MakeReview().Create(want).Obj(), Policy{}, Hook::kMutating);
        REQUIRE(response.at("allowed") == true);
        if (response.contains("patch")) {
          want = want.patch(Json::parse(
              jobset_webhook::testing::base64_decode(response.at("patch").get<std::string>())));
          jobset_webhook::apiserver::apply_crd_defaults(want);
        }
        const auto stored = jobset_webhook::apiserver::create_defaults(js.object);
        REQUIRE(stored.ok());
        CHECK(stored.value() == want);
        // The validating webhook's view-only defaults read the same object, to the byte.
        const auto sent = jobset_webhook::ParsedView::of(js.object);
        REQUIRE(sent.ok());
        const auto view = jobset_webhook::defaulting::create_defaults_view(sent.value().root());
        REQUIRE(view.ok());
        const auto read = view.value() ? jobset_webhook::patch::to_json(view.value()->root())
                                       : jobset_webhook::patch::to_json(sent.value().root());
        REQUIRE(read.ok());
        CHECK(read.value().dump() == stored.value().dump());
      }
      ++jobsets;
    }
  }
  CHECK(jobsets >= min_jobsets);
}

}  // namespace

TEST_CASE("What the cluster stores is the schema defaults then the server's mutating patch",
          "[apiserver][create_defaults]") {
  stored_is_schema_then_mutating_defaults(jobset_webhook::testing::kFixtureJobSets, 6);
}

TEST_CASE("What the cluster stores of an upstream example is its schema defaults then the patch",
          "[apiserver][create_defaults][upstream_examples]") {
  stored_is_schema_then_mutating_defaults(jobset_webhook::testing::kUpstreamExamples, 20);
}
