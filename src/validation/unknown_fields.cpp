#include "jobset_webhook/validation/unknown_fields.h"

#include <algorithm>
#include <array>

#include "field_kinds.h"
#include "jobset_schema.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// The CRD's embedded ObjectMeta (controller-gen's generateEmbeddedObjectMeta) keeps these only.
constexpr std::array<std::string_view, 5> kEmbeddedMetaFields = {"annotations", "finalizers",
                                                                 "labels", "name", "namespace"};

// The top level of the CRD's schema: apiVersion, kind, metadata, spec, status.
constexpr std::array<std::string_view, 5> kRootFields = {"apiVersion", "kind", "metadata", "spec",
                                                         "status"};

bool is_object_meta(const FieldKind& kind) {
  return kind.field("generateName") != nullptr && kind.field("ownerReferences") != nullptr &&
         kind.field("managedFields") != nullptr;
}

// The whole ObjectMeta, as the field-kinds table has it under template.metadata.
const FieldKind& object_meta_kind() {
  static const FieldKind* const kind = find_kind("template.metadata");
  return *kind;
}

class Walk {
 public:
  explicit Walk(std::vector<UnknownField>& out) : out_(out) {}

  void schema(const SchemaNode& node, JsonView v) {
    if (node.kind != nullptr) return kind(*node.kind, v);
    if (node.type == SchemaType::kObject && v.type() == element_type::OBJECT) {
      if (node.properties.empty()) return;  // not modelled: keep what it holds
      for (const auto [key, value] : JsonObjectView(v)) {
        // A copy: clang 14 (the fuzz and sanitizer builds) cannot capture a structured binding.
        const std::string_view name = key;
        const auto it = std::find_if(node.properties.begin(), node.properties.end(),
                                     [&](const SchemaNode& p) { return p.name == name; });
        if (it == node.properties.end()) {
          record(key);
        } else {
          push_key(key);
          schema(*it, value);
          pop();
        }
      }
    } else if (node.type == SchemaType::kArray && v.type() == element_type::ARRAY &&
               !node.items.empty()) {
      std::size_t i = 0;
      for (const auto e : JsonArrayView(v)) {
        push_index(i++);
        schema(node.items.front(), e);
        pop();
      }
    }
  }

  void kind(const FieldKind& k, JsonView v) {
    switch (k.shape) {
      case Shape::kStruct: return fields(k, v, is_object_meta(k));
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

  // The fields of a struct of kind k; meta: an embedded ObjectMeta, limited to what the CRD keeps.
  void fields(const FieldKind& k, JsonView v, bool meta) {
    if (v.type() != element_type::OBJECT || k.fields.empty()) return;
    for (const auto [key, value] : JsonObjectView(v)) {
      const FieldKind* field = k.field(key);
      if (meta && std::find(kEmbeddedMetaFields.begin(), kEmbeddedMetaFields.end(), key) ==
                      kEmbeddedMetaFields.end())
        field = nullptr;
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
    meta_walk.fields(object_meta_kind(), metadata.value_unsafe(), false);
    meta_walk.pop();
    std::sort(meta.begin(), meta.end(), by_path);
  }
  Walk walk(out);
  for (const auto [key, value] : JsonObjectView(js)) {
    if (std::find(kRootFields.begin(), kRootFields.end(), key) == kRootFields.end()) {
      walk.record(key);
    } else if (key == "spec" || key == "status") {
      // status too: the decoder prunes it before the status subresource's strategy drops it.
      walk.push_key(key);
      walk.schema(key == "spec" ? spec_schema() : status_schema(), value);
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
