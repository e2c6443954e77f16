#include "semantic.h"

#include <string_view>

#include "jobset_webhook/field/value.h"
#include "json_values.h"
#include "object_members.h"
#include "rfc3339.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

bool scalars_equal(const FieldKind& kind, MaybeJson a, MaybeJson b) {
  if (!a && !b) return true;
  if (kind.pointer && (!a || !b)) return false;
  switch (kind.scalar) {
    case ScalarKind::kString: {
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING)))
        break;
      return (a ? std::string_view(*a) : "") == (b ? std::string_view(*b) : "");
    }
    case ScalarKind::kInteger: {
      if ((a && !is_number(*a)) || (b && !is_number(*b))) break;
      if (!a || !b) return is_zero(a ? *a : *b);  // absent is 0
      return numbers_equal(*a, *b);
    }
    case ScalarKind::kBool: {
      if ((a && !has_type(a, element_type::BOOL)) || (b && !has_type(b, element_type::BOOL))) break;
      return (a && bool(*a)) == (b && bool(*b));
    }
    case ScalarKind::kQuantity: {
      // The CRD declares quantities anyOf [integer, string], and Go's Quantity.UnmarshalJSON reads
      // a JSON number by its text: 1 and "1" are the same quantity.
      if ((a && !is_quantity_json(*a)) || (b && !is_quantity_json(*b))) break;
      // The same text is the same value, parseable or not (then both sides fall back to plain
      // JSON, equal too): an unchanged quantity costs no parse.
      if (has_type(a, element_type::STRING) && has_type(b, element_type::STRING) &&
          std::string_view(*a) == std::string_view(*b))
        return true;
      const auto qa = a ? quantity_of(*a) : parse_quantity("0");
      const auto qb = b ? quantity_of(*b) : parse_quantity("0");
      if (!qa || !qb) break;
      return *qa == *qb;
    }
    case ScalarKind::kTime: {
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING)))
        break;
      if (a && b && std::string_view(*a) == std::string_view(*b)) return true;  // as for quantities
      const auto ta = a ? parse_time(std::string_view(*a)) : zero_time();
      const auto tb = b ? parse_time(std::string_view(*b)) : zero_time();
      if (!ta || !tb) break;
      return *ta == *tb;
    }
    case ScalarKind::kIntOrString: {
      // The zero IntOrString is the integer 0.
      const bool a_string = has_type(a, element_type::STRING);
      const bool b_string = has_type(b, element_type::STRING);
      if (a_string != b_string) return false;
      if (a_string) return std::string_view(*a) == std::string_view(*b);
      if ((a && !is_number(*a)) || (b && !is_number(*b))) break;
      if (!a || !b) return is_zero(a ? *a : *b);
      return numbers_equal(*a, *b);
    }
    case ScalarKind::kRawJson: break;
  }
  // A value of the wrong JSON type never decodes in Go; compare what was sent.
  return json_equal(a, b);
}

// True when a and b are the same JSON up to whitespace: the same types and scalars, and objects
// with the same keys in strictly increasing order on both sides. Such values are equal for every
// kind and every DiffOptions, since each rule of the walk is reflexive; the one exception, an
// object holding a key twice (the walk pairs it with the other side's first entry of that name),
// is ruled out by the strict order. As the API server sends sorted objects, an unchanged subtree
// is recognised by this one pass, without kinds, lookups or paths.
bool identical(JsonView a, JsonView b) {
  const auto type = a.type();
  if (type != b.type()) return false;
  switch (type) {
    case element_type::STRING: return std::string_view(a) == std::string_view(b);
    case element_type::INT64: return a.get_int64().value_unsafe() == b.get_int64().value_unsafe();
    case element_type::UINT64:
      return a.get_uint64().value_unsafe() == b.get_uint64().value_unsafe();
    case element_type::DOUBLE:
      return a.get_double().value_unsafe() == b.get_double().value_unsafe();
    case element_type::BOOL: return a.get_bool().value_unsafe() == b.get_bool().value_unsafe();
    case element_type::NULL_VALUE: return true;
    case element_type::ARRAY: {
      const auto arr_a = JsonArrayView(a), arr_b = JsonArrayView(b);
      auto ia = arr_a.begin(), ib = arr_b.begin();
      const auto ea = arr_a.end(), eb = arr_b.end();
      for (; ia != ea && ib != eb; ++ia, ++ib) {
        if (!identical(*ia, *ib)) return false;
      }
      return ia == ea && ib == eb;
    }
    case element_type::OBJECT: {
      const auto obj_a = JsonObjectView(a), obj_b = JsonObjectView(b);
      auto ia = obj_a.begin(), ib = obj_b.begin();
      const auto ea = obj_a.end(), eb = obj_b.end();
      std::string_view previous;
      for (bool first = true; ia != ea && ib != eb; ++ia, ++ib, first = false) {
        const std::string_view key = ia.key();
        if (key != ib.key() || (!first && !field::key_less(previous, key))) return false;
        if (!identical(ia.value(), ib.value())) return false;
        previous = key;
      }
      return ia == ea && ib == eb;
    }
  }
  return false;
}

// Both absent (null counts as absent), or identical.
bool same(MaybeJson a, MaybeJson b) { return a ? b && identical(*a, *b) : !b; }

// Shapes without known fields or elements, for walking plain JSON.
const FieldKind kPlainStruct{};
const FieldKind kPlainSlice{false, Shape::kSlice, ScalarKind::kString, {}, nullptr, {}};

class Walker {
 public:
  // Equality mode: stops at the first difference and builds no paths.
  explicit Walker(const DiffOptions& options) : options_(options) {}
  // Diff mode: visits everything and records each difference.
  Walker(const DiffOptions& options, field::Path& path, std::vector<Change>& changes)
      : options_(options), path_(&path), changes_(&changes) {}

  bool walk(const FieldKind* kind, MaybeJson a, MaybeJson b) {
    return same(a, b) || compare(kind, a, b);
  }

 private:
  // walk() for values that are not the same().
  bool compare(const FieldKind* kind, MaybeJson a, MaybeJson b) {
    if (kind == nullptr) return walk_plain(a, b);
    if (ignored(kind)) return true;
    switch (kind->shape) {
      case Shape::kScalar: return record(scalars_equal(*kind, a, b), kind, a, b);
      case Shape::kStruct: return walk_struct(*kind, a, b);
      case Shape::kSlice: return walk_slice(*kind, a, b);
      case Shape::kMap: return walk_map(*kind, a, b);
    }
    return true;
  }

  bool ignored(const FieldKind* kind) const {
    return std::find(options_.ignored.begin(), options_.ignored.end(), kind) !=
           options_.ignored.end();
  }

  bool record(bool equal, const FieldKind* kind, MaybeJson a, MaybeJson b,
              Change::What what = Change::What::kValue) {
    if (!equal && changes_ != nullptr) changes_->push_back({what, path_->to_string(), a, b, kind});
    return equal;
  }

  // Descends one level, keeping the path in step in diff mode. The same values on both sides are
  // passed over before the path is touched.
  template <typename Push>
  bool descend(Push push, const FieldKind* kind, MaybeJson a, MaybeJson b) {
    if (same(a, b)) return true;
    if (path_ == nullptr) return compare(kind, a, b);
    push(*path_);
    const bool equal = compare(kind, a, b);
    path_->pop();
    return equal;
  }

  bool done(bool equal) const { return !equal && changes_ == nullptr; }

  // A field the kind table does not know: plain JSON, still reported leaf by leaf.
  bool walk_plain(MaybeJson a, MaybeJson b) {
    if (changes_ == nullptr) return json_equal(a, b);
    if (has_type(a, element_type::OBJECT) && has_type(b, element_type::OBJECT)) {
      return walk_struct(kPlainStruct, a, b);
    }
    if (has_type(a, element_type::ARRAY) && has_type(b, element_type::ARRAY)) {
      return walk_slice(kPlainSlice, a, b);
    }
    return record(json_equal(a, b), nullptr, a, b);
  }

  bool walk_struct(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if (!a && !b) return true;
    // A pointer struct that appears or disappears is itself the changed leaf.
    if (kind.pointer && (!a || !b)) return record(false, &kind, a, b);
    if ((a && a->type() != element_type::OBJECT) || (b && b->type() != element_type::OBJECT)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    return for_each_member(a, b, changes_ != nullptr,
                           [&](std::string_view key, MaybeJson va, MaybeJson vb) {
                             const auto push = [key](field::Path& p) { p.push_child(key); };
                             return descend(push, kind.field(key), present(va), present(vb));
                           });
  }

  bool walk_slice(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if ((a && a->type() != element_type::ARRAY) || (b && b->type() != element_type::ARRAY)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    const std::size_t size_a = a ? JsonArrayView(*a).size() : 0;
    const std::size_t size_b = b ? JsonArrayView(*b).size() : 0;
    if (size_a != size_b) return record(false, &kind, a, b, Change::What::kListLength);
    if (size_a == 0) return true;  // missing, null and empty lists are equal
    bool equal = true;
    auto it_b = JsonArrayView(*b).begin();
    std::size_t i = 0;
    for (const auto value_a : JsonArrayView(*a)) {
      const auto push = [i](field::Path& p) { p.push_index(i); };
      equal &= descend(push, kind.element.get(), present(value_a), present(*it_b));
      if (done(equal)) return false;
      ++it_b, ++i;
    }
    return equal;
  }

  bool walk_map(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if ((a && a->type() != element_type::OBJECT) || (b && b->type() != element_type::OBJECT)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    // In a Go map an entry exists or not, whatever its value: presence is compared first.
    return for_each_member(a, b, changes_ != nullptr,
                           [&](std::string_view key, MaybeJson va, MaybeJson vb) {
                             const auto push = [key](field::Path& p) { p.push_key(key); };
                             if (va && vb)
                               return descend(push, kind.element.get(), present(va), present(vb));
                             if (path_ != nullptr) push(*path_);
                             record(false, nullptr, present(va), present(vb));
                             if (path_ != nullptr) path_->pop();
                             return false;
                           });
  }

  const DiffOptions& options_;
  field::Path* path_ = nullptr;
  std::vector<Change>* changes_ = nullptr;
};

}  // namespace

bool semantically_equal(const FieldKind* kind, MaybeJson a, MaybeJson b,
                        const DiffOptions& options) {
  return Walker(options).walk(kind, a, b);
}

void diff(const FieldKind* kind, MaybeJson old_value, MaybeJson new_value, field::Path& path,
          const DiffOptions& options, std::vector<Change>& changes) {
  Walker(options, path, changes).walk(kind, old_value, new_value);
}

}  // namespace jobset_webhook::validation
