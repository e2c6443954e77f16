#include "jobset_webhook/validation/unknown_fields.h"

#include <algorithm>

#include "field_kinds.h"
#include "crd_schema.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// The whole ObjectMeta, as the field-kinds table has it under template.metadata.
const FieldKind& object_meta_kind() {
  static const FieldKind* const kind = find_kind("template.metadata");
  return *kind;
}

class Walk {
 public:
  explicit Walk(std::vector<UnknownField>& out) : out_(out) {}

  // The pruning of apiextensions-apiserver (pruning/algorithm.go, prune): an object's fields
  // that are neither properties nor covered by additionalProperties are unknown, nothing below
  // x-kubernetes-preserve-unknown-fields is.
  void schema(const CrdSchema& node, JsonView v) {
    if (node.preserve_unknown_fields) return;
    if (v.type() == element_type::OBJECT) {
      if (node.additional_properties_any) return;
      if (node.properties.empty() && node.additional_properties == nullptr) return;
      for (const auto [key, value] : JsonObjectView(v)) {
        // A copy: clang 14 (the fuzz and sanitizer builds) cannot capture a structured binding.
        const std::string_view name = key;
        const CrdSchema* sub = node.member_schema(name);
        if (sub == nullptr) {
          record(name);
        } else {
          push_key(name);
          schema(*sub, value);
          pop();
        }
      }
    } else if (v.type() == element_type::ARRAY && node.items != nullptr) {
      std::size_t i = 0;
      for (const auto e : JsonArrayView(v)) {
        push_index(i++);
        schema(*node.items, e);
        pop();
      }
    }
  }

  void kind(const FieldKind& k, JsonView v) {
    switch (k.shape) {
      case Shape::kStruct: return fields(k, v);
      case Shape::kSlice: {
        if (v.type() != element_type::ARRAY || !k.element) return;
        std::size_t i = 0;
        for (const auto e : JsonArrayView(v)) {
          push_index(i++);
          kind(*k.element, e);
          pop();
        }
        return;
      }
      case Shape::kMap: {
        // additionalProperties: every key is declared, and its path is written like a field's.
        if (v.type() != element_type::OBJECT || !k.element) return;
        for (const auto [key, value] : JsonObjectView(v)) {
          push_key(key);
          kind(*k.element, value);
          pop();
        }
        return;
      }
      case Shape::kScalar: return;
    }
  }

  // The fields of a struct of kind k (the root metadata, a Go ObjectMeta, and what it holds).
  void fields(const FieldKind& k, JsonView v) {
    if (v.type() != element_type::OBJECT || k.fields.empty()) return;
    for (const auto [key, value] : JsonObjectView(v)) {
      const FieldKind* field = k.field(key);
      if (field == nullptr) {
        record(key);
      } else {
        push_key(key);
        kind(*field, value);
        pop();
      }
    }
  }

  void push_key(std::string_view key) {
    frames_.push_back(path_.size());
    if (!path_.empty()) path_ += '.';
    path_ += key;
    tokens_.emplace_back(key);
  }

  void push_index(std::size_t i) {
    frames_.push_back(path_.size());
    // Appended piece by piece: "[" + to_string(i) + "]" trips GCC 12's -Wrestrict at -O3.
    path_ += '[';
    path_ += std::to_string(i);
    path_ += ']';
    tokens_.push_back(std::to_string(i));
  }

  void pop() {
    path_.resize(frames_.back());
    frames_.pop_back();
    tokens_.pop_back();
  }

  void record(std::string_view key) {
    push_key(key);
    out_.push_back({path_, tokens_});
    pop();
  }

 private:
  std::vector<UnknownField>& out_;
  std::string path_;
  std::vector<std::size_t> frames_;
  std::vector<std::string> tokens_;
};

}  // namespace

std::vector<UnknownField> unknown_fields(JsonView js) {
  std::vector<UnknownField> out;
  if (js.type() != element_type::OBJECT) return out;
  const auto by_path = [](const UnknownField& a, const UnknownField& b) { return a.path < b.path; };
  // The API server reads the root metadata first, strictly as a whole ObjectMeta
  // (objectmeta.GetObjectMetaWithOptions, apiextensions-apiserver v0.37.2), and reports its
  // unknown fields before the pruned ones (unstructuredSchemaCoercer.apply); its decoder visits
  // the re-marshalled metadata in key order, which sorting by path reproduces.
  std::vector<UnknownField> meta;
  if (const auto metadata = js["metadata"]; !metadata.error()) {
    Walk meta_walk(meta);
    meta_walk.push_key("metadata");
    meta_walk.fields(object_meta_kind(), metadata.value_unsafe());
    meta_walk.pop();
    std::sort(meta.begin(), meta.end(), by_path);
  }
  Walk walk(out);
  for (const auto [key, value] : JsonObjectView(js)) {
    if (crd_schema().property(key) == nullptr) {  // apiVersion, kind, metadata, spec, status
      walk.record(key);
    } else if (key == "spec" || key == "status") {
      // status too: the decoder prunes it before the status subresource's strategy drops it.
      walk.push_key(key);
      walk.schema(*crd_schema().property(key), value);
      walk.pop();
    }
  }
  std::sort(out.begin(), out.end(), by_path);
  out.insert(out.begin(), meta.begin(), meta.end());
  return out;
}

std::string unknown_field_message(const UnknownField& field) {
  return "unknown field \"" + field.path + "\"";
}

}  // namespace jobset_webhook::validation
