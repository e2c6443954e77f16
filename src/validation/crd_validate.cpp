#include "crd_validate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "json_values.h"
#include "quantity.h"
#include "schema_types.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// The text a key of a list-type map or an entry of a set is told apart by.
std::string identity(MaybeJson v) { return v ? simdjson::to_string(*v) : std::string(); }

// The key fields of a list-type map's entry, as one text.
std::string entry_keys(const CrdSchema& list, JsonView entry) {
  std::string id;
  for (const auto& k : list.list_map_keys) id += identity(member(entry, k)) + '\n';
  return id;
}

class OldRef;

// The entries of an old list-type map by their keys, indexed the first time an entry of the new
// list needs its old self: one pass over the old list, not a scan per entry, which made a list of
// 18,000 unchanged invalid entries (each ratcheted) cost seconds. Of entries with equal keys, the
// first.
class OldEntries {
 public:
  OldEntries(const OldRef* list, const CrdSchema& schema) : list_(list), schema_(schema) {}
  MaybeJson find(JsonView entry) const;

 private:
  const OldRef* list_;
  const CrdSchema& schema_;
  mutable std::optional<std::unordered_map<std::string, JsonView>> by_keys_;
};

// The value of the old object that a value of the new one correlates with, found only when an
// error needs it (ratcheting drops an error of an unchanged value): a valid object costs no
// look-up in the old one, and a map of any size no search per key.
class OldRef {
 public:
  static OldRef root(MaybeJson value) {
    OldRef r;
    r.resolved_ = true;
    r.value_ = value;
    return r;
  }
  static OldRef key(const OldRef* parent, std::string_view k) {
    OldRef r;
    r.parent_ = parent;
    r.key_ = k;
    return r;
  }
  // The entry of a list-type map with the same keys as `entry`.
  static OldRef map_entry(const OldEntries* entries, JsonView entry) {
    OldRef r;
    r.entries_ = entries;
    r.entry_ = entry;
    return r;
  }

  MaybeJson resolve() const {
    if (resolved_) return value_;
    resolved_ = true;
    value_ = entries_ != nullptr ? entries_->find(entry_) : member(parent_->resolve(), key_);
    return value_;
  }

 private:
  const OldRef* parent_ = nullptr;
  std::string_view key_;
  const OldEntries* entries_ = nullptr;
  JsonView entry_;
  mutable bool resolved_ = false;
  mutable MaybeJson value_;
};

MaybeJson OldEntries::find(JsonView entry) const {
  if (!by_keys_) {
    by_keys_.emplace();
    for (const auto e : items_of(list_->resolve())) {
      if (e.type() == element_type::OBJECT) by_keys_->try_emplace(entry_keys(schema_, e), e);
    }
  }
  const auto it = by_keys_->find(entry_keys(schema_, entry));
  if (it == by_keys_->end()) return std::nullopt;
  return it->second;
}

// kube-openapi error named `<path> in body ...`: the field in kube-openapi's notation, the origin
// in apimachinery's.
field::Error at_field(field::Error error, const field::Path& path) {
  error.field = path.to_openapi_string();
  error.origin = path.to_string();
  return error;
}

// Go's %v of a float64 bound: 0, 1.5, 1e+21.
std::string bound_text(double d) {
  if (std::trunc(d) == d && std::fabs(d) < 1e21) return std::to_string(static_cast<long long>(d));
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::optional<double> number_of(JsonView v) {
  switch (v.type()) {
    case element_type::INT64: return static_cast<double>(std::int64_t(v));
    case element_type::UINT64: return static_cast<double>(std::uint64_t(v));
    case element_type::DOUBLE: return double(v);
    default: return std::nullopt;
  }
}

// The few patterns of the CRD other than the quantity's, compiled once each.
bool matches_pattern(const std::string& pattern, std::string_view text) {
  if (pattern == kQuantityPattern) return matches_quantity_pattern(text);
  static thread_local std::unordered_map<std::string, std::regex> compiled;
  auto it = compiled.find(pattern);
  if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern)).first;
  return std::regex_search(text.begin(), text.end(), it->second);
}

std::size_t rune_count(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

class SchemaWalk {
 public:
  SchemaWalk(field::ErrorList& errs, field::Path path) : errs_(errs), path_(std::move(path)) {}

  void node(const CrdSchema& s, JsonView v, const OldRef* old) {
    if (v.type() == element_type::NULL_VALUE) return;
    const std::size_t before = errs_.size();
    if (type_ok(s, v)) {
      if (v.type() == element_type::STRING) string_rules(s, std::string_view(v));
      if (number_of(v)) number_rules(s, v);
      if (v.type() == element_type::ARRAY) array(s, v, old);
      if (!s.enum_values.empty()) enumeration(s, v);
      if (v.type() == element_type::OBJECT) object(s, v, old);
    }
    if (old != nullptr && errs_.size() > before) {
      const MaybeJson o = old->resolve();
      if (o && json_equal(*o, v)) errs_.resize(before);
    }
  }

 private:
  // kube-openapi's typeValidator (validate/type.go): a value that is not a string or an array
  // is first held against the format (a boolean for an int32 is `must be of type int32: ""`),
  // then every value against the type; a float with an integral value is an integer.
  bool type_ok(const CrdSchema& s, JsonView v) {
    const std::string_view actual = json_type(v);
    if (s.int_or_string) {
      if (actual == "integer" || actual == "string") return true;
      errs_.push_back(type_error(path_, "integer,string", v));
      return false;
    }
    if (s.type.empty()) return true;
    const bool matches = actual == s.type || (s.type == "number" && actual == "integer");
    const auto kind = v.type();
    if (!s.format.empty() && kind != element_type::STRING && kind != element_type::ARRAY &&
        !matches) {
      // What Go's decoder gives the value, as kube-openapi's schemaInfoForType names its format.
      std::string_view go_format;
      if (kind == element_type::INT64 || kind == element_type::UINT64) go_format = "int64";
      if (kind == element_type::DOUBLE) go_format = "float64";
      if (go_format != s.format) {
        const std::string name = path_.to_openapi_string();
        errs_.push_back(at_field(
            field::Error{field::ErrorType::kTypeInvalid, "", field::BadValue::string(go_format),
                         name + " in body must be of type " + s.format + ": \"" +
                             std::string(go_format) + "\""},
            path_));
        return false;
      }
    }
    if (matches) return true;
    errs_.push_back(type_error(path_, s.type, v));
    return false;
  }

  // stringValidator: the first failure only.
  void string_rules(const CrdSchema& s, std::string_view text) {
    // The field's name is printed only for an error: every string of a review passes here.
    const auto name = [this] { return path_.to_openapi_string(); };
    if (s.max_length && rune_count(text) > static_cast<std::size_t>(*s.max_length)) {
      errs_.push_back(at_field(field::too_long(path_, *s.max_length), path_));
    } else if (s.min_length && rune_count(text) < static_cast<std::size_t>(*s.min_length)) {
      errs_.push_back(at_field(field::invalid(path_, field::BadValue::string(text),
                                              name() + " in body should be at least " +
                                                  std::to_string(*s.min_length) + " chars long"),
                               path_));
    } else if (!s.pattern.empty() && !matches_pattern(s.pattern, text)) {
      errs_.push_back(at_field(field::invalid(path_, field::BadValue::string(text),
                                              name() + " in body should match '" + s.pattern + "'"),
                               path_));
    }
  }

  // numberValidator: the range of an int32, then maximum, then minimum.
  void number_rules(const CrdSchema& s, JsonView v) {
    const auto name = [this] { return path_.to_openapi_string(); };
    if (s.type == "integer" && s.format == "int32") {
      const auto n = integer_of(v);
      if (!n || *n < kMinInt32 || *n > kMaxInt32) {
        // Not a kube-openapi Validation error: apiextensions reports it without a field.
        field::Error error{field::ErrorType::kInvalid, "<nil>", field::BadValue::string(""),
                           "Checked value must be of type integer with format int32 in " + name()};
        error.origin = path_.to_string();
        errs_.push_back(std::move(error));
      }
    }
    const double d = *number_of(v);
    if (s.maximum && (s.exclusive_maximum ? d >= *s.maximum : d > *s.maximum)) {
      errs_.push_back(at_field(
          field::invalid(path_, field::BadValue::of(v),
                         name() + " in body should be less than " +
                             (s.exclusive_maximum ? "" : "or equal to ") + bound_text(*s.maximum)),
          path_));
    }
    if (s.minimum && (s.exclusive_minimum ? d <= *s.minimum : d < *s.minimum)) {
      errs_.push_back(at_field(
          field::invalid(path_, field::BadValue::of(v),
                         name() + " in body should be greater than " +
                             (s.exclusive_minimum ? "" : "or equal to ") + bound_text(*s.minimum)),
          path_));
    }
  }

  // schemaSliceValidator: the items first, then minItems and maxItems.
  void array(const CrdSchema& s, JsonView v, const OldRef* old) {
    const JsonArrayView entries(v);
    std::size_t i = 0;
    if (s.items != nullptr) {
      const bool keyed = s.list_type == "map" && old != nullptr;
      const OldEntries old_entries(old, s);
      for (const auto e : entries) {
        path_.push_index(i++);
        // Only a list-type map's entries correlate with old ones; below an atomic or set list,
        // nothing does (the list as a whole does).
        if (keyed && e.type() == element_type::OBJECT) {
          const OldRef entry_old = OldRef::map_entry(&old_entries, e);
          node(*s.items, e, &entry_old);
        } else {
          node(*s.items, e, nullptr);
        }
        path_.pop();
      }
    } else {
      i = entries.size();
    }
    const auto size = static_cast<std::int64_t>(i);
    if (s.min_items && size < *s.min_items) {
      errs_.push_back(
          at_field(field::invalid(path_, field::BadValue::integer(size),
                                  path_.to_openapi_string() + " in body should have at least " +
                                      std::to_string(*s.min_items) + " items"),
                   path_));
    }
    if (s.max_items && size > *s.max_items) {
      errs_.push_back(at_field(field::too_many(path_, size, *s.max_items), path_));
    }
  }

  void enumeration(const CrdSchema& s, JsonView v) {
    // The CRD's enums are of strings; a string is compared as it is, without a copy.
    const bool allowed =
        v.type() == element_type::STRING
            ? std::any_of(s.enum_values.begin(), s.enum_values.end(),
                          [text = std::string_view(v)](const Json& e) {
                            return e.is_string() && e.get_ref<const std::string&>() == text;
                          })
            : std::find(s.enum_values.begin(), s.enum_values.end(),
                        Json::parse(simdjson::to_string(v), nullptr, false)) != s.enum_values.end();
    if (allowed) return;
    std::vector<std::string> valid;
    for (const auto& e : s.enum_values)
      valid.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    errs_.push_back(at_field(field::not_supported(path_, field::BadValue::of(v), valid), path_));
  }

  // objectValidator: the values of additionalProperties, the properties (Go visits them in map
  // order, which is random; here in name order), then the required fields in the CRD's order.
  void object(const CrdSchema& s, JsonView v, const OldRef* old) {
    if (s.preserve_unknown_fields && s.properties.empty() && s.additional_properties == nullptr)
      return;
    std::vector<std::pair<std::string_view, JsonView>> present;
    for (const auto [key, child] : JsonObjectView(v)) {
      const std::string_view name = key;
      if (s.property(name) != nullptr) {
        present.emplace_back(name, child);
      } else if (s.additional_properties != nullptr) {
        member_node(*s.additional_properties, name, child, old, true);
      }
    }
    std::sort(present.begin(), present.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [name, child] : present)
      member_node(*s.property(name), name, child, old, false);
    for (const auto& required : s.required) {
      const MaybeJson child = member(v, required);
      if (!child)
        errs_.push_back(
            at_field(field::required(path_.child(required), ""), path_.child(required)));
    }
  }

  void member_node(const CrdSchema& s, std::string_view name, JsonView child, const OldRef* old,
                   bool is_key) {
    if (is_key) {
      path_.push_key(name);
    } else {
      path_.push_child(name);
    }
    if (old != nullptr) {
      const OldRef child_old = OldRef::key(old, name);
      node(s, child, &child_old);
    } else {
      node(s, child, nullptr);
    }
    path_.pop();
  }

  field::ErrorList& errs_;
  field::Path path_;
};

class ListWalk {
 public:
  ListWalk(field::ErrorList& errs, field::Path path) : errs_(errs), path_(std::move(path)) {}

  void value(const CrdSchema& s, JsonView v) {
    if (v.type() == element_type::ARRAY) return array(s, v);
    if (v.type() != element_type::OBJECT) return;
    // Go visits the keys of the object in map order, additionalProperties' before properties'.
    if (s.additional_properties != nullptr) {
      for (const auto [key, child] : JsonObjectView(v)) {
        if (child.type() != element_type::ARRAY && child.type() != element_type::OBJECT) continue;
        path_.push_key(key);
        value(*s.additional_properties, child);
        path_.pop();
      }
    }
    if (s.properties.empty()) return;
    for (const auto [key, child] : JsonObjectView(v)) {
      if (child.type() != element_type::ARRAY && child.type() != element_type::OBJECT) continue;
      const CrdSchema* sub = s.property(key);
      if (sub == nullptr) continue;
      path_.push_child(key);
      value(*sub, child);
      path_.pop();
    }
  }

 private:
  void array(const CrdSchema& s, JsonView v) {
    const auto entries = items_of(v);
    if (s.list_type == "set") {
      duplicates(
          entries, [](JsonView e) { return identity(e); },
          [](JsonView e) { return field::BadValue::of(e); });
    } else if (s.list_type == "map") {
      map_keys(s, entries);
    }
    if (s.items == nullptr) return;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      path_.push_index(i);
      value(*s.items, entries[i]);
      path_.pop();
    }
  }

  // validateListSet: the index of the second of each value seen twice or more.
  template <typename Identity, typename Shown>
  void duplicates(const std::vector<JsonView>& entries, Identity identity_of, Shown shown) {
    if (entries.size() < 2) return;  // most lists of a JobSet: nothing to tell apart, no map built
    std::unordered_map<std::string, int> seen;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (++seen[identity_of(entries[i])] == 2)
        errs_.push_back(field::duplicate(path_.index(i), shown(entries[i])));
    }
  }

  // validateListMap: every entry an object, then the keys, shown as an object of the key fields
  // the entry has.
  void map_keys(const CrdSchema& s, const std::vector<JsonView>& entries) {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto t = entries[i].type();
      if (t != element_type::OBJECT && t != element_type::NULL_VALUE) {
        errs_.push_back(field::invalid(path_.index(i), field::BadValue::of(entries[i]),
                                       "must be an object for an array of list-type map"));
        return;
      }
    }
    duplicates(
        entries, [&](JsonView e) { return entry_keys(s, e); },
        [&](JsonView e) {
          std::vector<std::string> keys = s.list_map_keys;
          std::sort(keys.begin(), keys.end());  // Go marshals a map's keys in order
          Json shown = Json::object();
          for (const auto& k : keys) {
            if (const MaybeJson key = member(e, k))
              shown[k] = Json::parse(simdjson::to_string(*key), nullptr, false);
          }
          return field::BadValue::of(shown);
        });
  }

  field::ErrorList& errs_;
  field::Path path_;
};

}  // namespace

field::ErrorList validate_schema(const CrdSchema& schema, JsonView v, MaybeJson old,
                                 const field::Path& path) {
  field::ErrorList errs;
  SchemaWalk walk(errs, path);
  if (old) {
    const OldRef root = OldRef::root(old);
    walk.node(schema, v, &root);
  } else {
    walk.node(schema, v, nullptr);
  }
  return errs;
}

bool cel_blocked(field::ErrorList& errs) {
  using T = field::ErrorType;
  const bool blocked = std::any_of(errs.begin(), errs.end(), [](const field::Error& e) {
    return e.type == T::kNotSupported || e.type == T::kRequired || e.type == T::kTooLong ||
           e.type == T::kTooMany || e.type == T::kTypeInvalid;
  });
  if (blocked) {
    errs.push_back(field::Error{T::kInvalid, "<nil>", field::BadValue::null(),
                                "some validation rules were not checked because the object was "
                                "invalid; correct the existing errors to complete validation"});
  }
  return blocked;
}

field::ErrorList validate_list_sets_and_maps(const CrdSchema& schema, JsonView v,
                                             const field::Path& path) {
  field::ErrorList errs;
  ListWalk(errs, path).value(schema, v);
  return errs;
}

}  // namespace jobset_webhook::validation
