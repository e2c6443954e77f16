#include "jobset_webhook/field/warning.h"

#include <utility>

namespace jobset_webhook::field {

Warning warning(const Path& path, std::string text) { return {path.to_string(), std::move(text)}; }

Warning object_warning(std::string text) { return {std::string(), std::move(text)}; }

std::vector<std::string> texts(const WarningList& warnings) {
  std::vector<std::string> out;
  out.reserve(warnings.size());
  for (const auto& w : warnings) out.push_back(w.text);
  return out;
}

}  // namespace jobset_webhook::field
