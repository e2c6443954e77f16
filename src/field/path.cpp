#include "jobset_webhook/field/path.h"

namespace jobset_webhook::field {

Path::Path(std::string_view root) { push_child(root); }

Path Path::index(std::size_t i) const {
  Path p = *this;
  p.push_index(i);
  return p;
}

Path Path::key(std::string_view k) const {
  Path p = *this;
  p.push_key(k);
  return p;
}

void Path::push_child(std::string_view name) {
  segments_.push_back({SegmentKind::kChild, std::string(name), 0});
}

void Path::push_index(std::size_t i) { segments_.push_back({SegmentKind::kIndex, {}, i}); }

void Path::push_key(std::string_view k) {
  segments_.push_back({SegmentKind::kKey, std::string(k), 0});
}

void Path::pop() {
  if (!segments_.empty()) segments_.pop_back();
}

std::string Path::to_string() const {
  if (segments_.empty()) return "<nil>";
  std::string out;
  for (const auto& s : segments_) {
    switch (s.kind) {
      case SegmentKind::kChild:
        if (!out.empty()) out += '.';
        out += s.name;
        break;
      case SegmentKind::kIndex:
        out += '[';
        out += std::to_string(s.index);
        out += ']';
        break;
      case SegmentKind::kKey:
        out += '[';
        out += s.name;
        out += ']';
        break;
    }
  }
  return out;
}

std::string Path::to_openapi_string() const {
  Path fields;
  for (const auto& s : segments_) {
    fields.segments_.push_back(
        {s.kind == SegmentKind::kKey ? SegmentKind::kChild : s.kind, s.name, s.index});
  }
  return fields.to_string();
}

}  // namespace jobset_webhook::field
