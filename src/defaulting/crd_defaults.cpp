#include "jobset_webhook/defaulting/defaults.h"

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/validation/schema_defaults.h"

namespace jobset_webhook::defaulting {
namespace {

using simdjson::dom::element_type;

// The table as a tree of its paths, so that a walk visits each object of the JobSet once however
// many defaults lie below it.
struct DefaultNode {
  std::string name;
  bool each = false;            // a list: the children apply to every entry
  const Json* value = nullptr;  // a leaf: the default
  std::vector<DefaultNode> children;
};

DefaultNode& child_named(DefaultNode& parent, std::string_view segment) {
  const bool each = segment.size() > 2 && segment.substr(segment.size() - 2) == "[]";
  if (each) segment.remove_suffix(2);
  for (auto& c : parent.children) {
    if (c.name == segment) return c;
  }
  parent.children.push_back({std::string(segment), each, nullptr, {}});
  return parent.children.back();
}

const DefaultNode& schema_default_tree() {
  // Every `default:` of the CRD below spec, from the schema generated from it: the pod
  // template's come from core/v1 markers that controller-gen copies into the CRD.
  static const DefaultNode kRoot = [] {
    DefaultNode root{"", false, nullptr, {}};
    for (const auto& d : validation::schema_defaults()) {
      DefaultNode* node = &root;
      std::size_t start = 0;
      for (std::size_t dot; (dot = d.path.find('.', start)) != std::string::npos; start = dot + 1)
        node = &child_named(*node, std::string_view(d.path).substr(start, dot - start));
      child_named(*node, std::string_view(d.path).substr(start)).value = &d.value;
    }
    return root;
  }();
  return kRoot;
}

// Where the walk is: member names and list indexes from the root. Spelled as a JSON Pointer only
// when a default is due, which for an object a cluster sends (defaults already applied) is never:
// the walk itself then builds no string.
struct Step {
  std::string_view name;  // a member
  std::size_t index;      // an entry of a list, where name is empty
};

void append_trail(std::string& pointer, const std::vector<Step>& trail) {
  for (const auto& step : trail) {
    if (step.name.empty()) {
      append_pointer_token(pointer, std::to_string(step.index));
    } else {
      append_pointer_token(pointer, step.name);
    }
  }
}

// A default is due where its parent object exists and the field is absent ("add") or null
// ("replace"); entries of a list get it one by one.
void collect(JsonView object, const DefaultNode& node, std::vector<Step>& trail, Json& ops) {
  for (const auto& child : node.children) {
    JsonView member;
    const bool exists = JsonObjectView(object).at_key(child.name).get(member) == simdjson::SUCCESS;
    if (child.value != nullptr) {
      if (!exists || member.type() == element_type::NULL_VALUE) {
        std::string path;
        append_trail(path, trail);
        append_pointer_token(path, child.name);
        ops.push_back(
            {{"op", exists ? "replace" : "add"}, {"path", path}, {"value", *child.value}});
      }
      continue;
    }
    if (!exists) continue;
    trail.push_back({child.name, 0});
    if (!child.each && member.type() == element_type::OBJECT) {
      collect(member, child, trail, ops);
    } else if (child.each && member.type() == element_type::ARRAY) {
      std::size_t index = 0;
      for (const JsonView entry : JsonArrayView(member)) {
        trail.push_back({{}, index++});
        if (entry.type() == element_type::OBJECT) collect(entry, child, trail, ops);
        trail.pop_back();
      }
    }
    trail.pop_back();
  }
}

}  // namespace

Json crd_defaults_patch(JsonView js) {
  Json ops = Json::array();
  if (js.type() != element_type::OBJECT) return ops;
  std::vector<Step> trail;
  collect(js, schema_default_tree(), trail, ops);
  return ops;
}

}  // namespace jobset_webhook::defaulting
