#pragma once

// Test fixture: objects written out as one multi-document YAML file and read back as `check`
// reads a file, so that findings have lines to point at.

#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/documents.h"
#include "cli/manifests.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::testing {

inline cli::Manifests manifests_of(const std::vector<Json>& objects, const std::string& file) {
  std::string text;
  for (const auto& o : objects) text += "---\n" + cli::to_yaml(o);
  auto m = cli::parse_manifests(text, file);
  INFO((m.ok() ? "" : m.failure().message));
  REQUIRE(m.ok());
  return std::move(m).value();
}

}  // namespace jobset_webhook::testing
