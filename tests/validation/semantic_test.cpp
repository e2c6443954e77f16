#include "validation/semantic.h"

#include <catch2/catch.hpp>

#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::testing::Parsed;

namespace {

struct Case {
  const char* name;
  const char* path;    // kind-table path relative to a ReplicatedJob; "" for plain JSON
  const char* old_js;  // JSON of the value, or "absent"
  const char* new_js;
  bool equal;
};

v::MaybeJson value_of(const Parsed& doc) { return v::member(doc.root(), "v"); }

std::string wrap(const char* value) {
  return std::string("absent") == value ? "{}" : std::string(R"({"v":)") + value + "}";
}

}  // namespace

TEST_CASE("Semantic equality follows Go's typed decoding", "[validation][semantic]") {
  const std::vector<Case> cases = {
      {"quantity by value", "template.spec.template.spec.containers[].resources.limits[]", R"("1")",
       R"("1000m")", true},
      {"quantity binary suffix", "template.spec.template.spec.containers[].resources.limits[]",
       R"("1Gi")", R"("1024Mi")", true},
      {"quantity differs", "template.spec.template.spec.containers[].resources.limits[]", R"("1")",
       R"("2")", false},
      {"pointer quantity absent vs zero",
       "template.spec.template.spec.volumes[].emptyDir.sizeLimit", "absent", R"("0")", false},
      {"value quantity absent vs zero",
       "template.spec.template.spec.containers[].env[].valueFrom.resourceFieldRef.divisor",
       "absent", R"("0")", true},
      {"missing list equals empty list", "template.spec.template.spec.containers[].args", "absent",
       "[]", true},
      {"null list equals empty list", "template.spec.template.spec.containers[].args", "null", "[]",
       true},
      {"missing map equals empty map", "template.spec.template.spec.nodeSelector", "absent", "{}",
       true},
      {"list order matters", "template.spec.template.spec.containers[].args", R"(["a","b"])",
       R"(["b","a"])", false},
      {"value string absent equals empty", "template.spec.template.spec.containers[].workingDir",
       "absent", R"("")", true},
      {"value int absent equals zero", "template.spec.template.spec.containers[].ports[].hostPort",
       "absent", "0", true},
      {"value bool absent equals false", "template.spec.template.spec.containers[].stdin", "absent",
       "false", true},
      {"pointer int absent differs from zero", "template.spec.parallelism", "absent", "0", false},
      {"pointer string absent differs from empty", "template.spec.completionMode", "absent",
       R"("")", false},
      {"pointer bool absent differs from false", "template.spec.suspend", "absent", "false", false},
      {"pointer null equals absent", "template.spec.parallelism", "null", "absent", true},
      {"int spelled as float", "template.spec.parallelism", "2", "2.0", true},
      {"int-or-string typed", "template.spec.template.spec.containers[].livenessProbe.httpGet.port",
       "80", R"("80")", false},
      {"int-or-string absent is int zero",
       "template.spec.template.spec.containers[].livenessProbe.httpGet.port", "absent", "0", true},
      {"time as instant", "template.metadata.creationTimestamp", R"("2024-01-01T00:00:00Z")",
       R"("2024-01-01T01:00:00+01:00")", true},
      {"time differs", "template.metadata.creationTimestamp", R"("2024-01-01T00:00:00Z")",
       R"("2024-01-01T00:00:01Z")", false},
      {"value struct absent equals empty", "template.spec.template.metadata", "absent", "{}", true},
      {"value struct absent equals zero fields",
       "template.spec.template.spec.containers[].resources", "absent", R"({"limits":{}})", true},
      {"pointer struct absent differs from empty", "template.spec.template.spec.securityContext",
       "absent", "{}", false},
      {"key order does not matter", "template.spec.template.spec.containers[]",
       R"({"name":"a","image":"b"})", R"({"image":"b","name":"a"})", true},
      {"unknown field compared as plain JSON", "", R"({"x":{"b":1,"a":2}})",
       R"({"x":{"a":2,"b":1.0}})", true},
      {"unknown field differs", "", R"({"x":1})", R"({"x":"1"})", false},
      {"wrong JSON type compared as sent", "template.spec.parallelism", R"("2")", "2", false},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const v::FieldKind* kind = *c.path ? v::find_kind(c.path) : nullptr;
      if (*c.path) REQUIRE(kind != nullptr);
      const Parsed a(wrap(c.old_js)), b(wrap(c.new_js));
      CHECK(v::semantically_equal(kind, value_of(a), value_of(b)) == c.equal);
      CHECK(v::semantically_equal(kind, value_of(b), value_of(a)) == c.equal);
    }
  }
}

TEST_CASE("Every value-typed scalar of the template equals its zero value when absent",
          "[validation][semantic]") {
  // Walks the whole kind table, so the rule holds for every field, not only the ones named above.
  std::size_t checked = 0;
  std::vector<std::pair<std::string, const v::FieldKind*>> stack{{"", &v::replicated_job_kind()}};
  while (!stack.empty()) {
    auto [path, kind] = stack.back();
    stack.pop_back();
    for (const auto& [name, child] : kind->fields) stack.emplace_back(path + "." + name, &child);
    if (kind->element) stack.emplace_back(path + "[]", kind->element.get());
    if (kind->shape != v::Shape::kScalar) continue;
    const char* zero = nullptr;
    switch (kind->scalar) {
      case v::ScalarKind::kString: zero = R"("")"; break;
      case v::ScalarKind::kInteger: zero = "0"; break;
      case v::ScalarKind::kBool: zero = "false"; break;
      case v::ScalarKind::kQuantity: zero = R"("0")"; break;
      case v::ScalarKind::kIntOrString: zero = "0"; break;
      case v::ScalarKind::kTime: zero = R"("0001-01-01T00:00:00Z")"; break;
      case v::ScalarKind::kRawJson: continue;
    }
    const Parsed absent("{}"), explicit_zero(std::string(R"({"v":)") + zero + "}");
    INFO(path);
    CHECK(v::semantically_equal(kind, value_of(absent), value_of(explicit_zero)) == !kind->pointer);
    ++checked;
  }
  CHECK(checked > 700);
}

TEST_CASE("diff reports each changed leaf at its exact path, fields in key order",
          "[validation][semantic]") {
  const Parsed a(R"({"template":{"spec":{"template":{"spec":{"containers":[
      {"name":"main","image":"bash:5.1","args":["a"],"resources":{"limits":{"cpu":"1"}}}],
      "nodeSelector":{"zone":"a"}}}}}})");
  const Parsed b(R"({"template":{"spec":{"template":{"spec":{"containers":[
      {"name":"main","image":"bash:5.2","args":["a","b"],"resources":{"limits":{"cpu":"1000m","memory":"1Gi"}}}],
      "nodeSelector":{}}}}}})");
  jobset_webhook::field::Path path("spec");
  std::vector<v::Change> changes;
  v::diff(&v::replicated_job_kind(), a.root(), b.root(), path, {}, changes);
  std::vector<std::string> paths;
  for (const auto& c : changes) paths.push_back(c.path);
  CHECK(paths == std::vector<std::string>{
                     "spec.template.spec.template.spec.containers[0].args",
                     "spec.template.spec.template.spec.containers[0].image",
                     "spec.template.spec.template.spec.containers[0].resources.limits[memory]",
                     "spec.template.spec.template.spec.nodeSelector[zone]",
                 });
  CHECK(changes[0].what == v::Change::What::kListLength);
  CHECK(path.to_string() == "spec");  // the walker leaves the path as it found it
}

TEST_CASE("Ignored subtrees are left out of the comparison", "[validation][semantic]") {
  const Parsed a(R"({"template":{"spec":{"parallelism":1}}})");
  const Parsed b(R"({"template":{"spec":{"parallelism":2}}})");
  const v::FieldKind* ignored[] = {v::find_kind("template.spec.parallelism")};
  CHECK_FALSE(v::semantically_equal(&v::replicated_job_kind(), a.root(), b.root()));
  CHECK(v::semantically_equal(&v::replicated_job_kind(), a.root(), b.root(),
                              v::DiffOptions{ignored}));
}

TEST_CASE("A field that is null on one side and set on the other is reported once",
          "[validation][semantic]") {
  const Parsed a(R"({"template":{"spec":{"backoffLimit":null}}})");
  const Parsed b(R"({"template":{"spec":{"backoffLimit":3}}})");
  jobset_webhook::field::Path path("spec");
  std::vector<v::Change> changes;
  v::diff(&v::replicated_job_kind(), a.root(), b.root(), path, {}, changes);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].path == "spec.template.spec.backoffLimit");
}

TEST_CASE(
    "The same values pass whatever the order of their keys; an object holding a key twice equals "
    "itself",
    "[validation][semantic]") {
  struct OrderCase {
    const char* name;
    const char* old_js;
    const char* new_js;
    bool equal;
  };
  const std::vector<OrderCase> cases = {
      {"sorted keys, same values",
       R"({"template":{"spec":{"completions":2,"parallelism":2,"template":{"spec":{"containers":[{"image":"a","name":"m"}]}}}}})",
       R"({"template":{"spec":{"completions":2,"parallelism":2,"template":{"spec":{"containers":[{"image":"a","name":"m"}]}}}}})",
       true},
      {"keys in another order on one side",
       R"({"template":{"spec":{"completions":2,"parallelism":2,"template":{"spec":{"containers":[{"image":"a","name":"m"}]}}}}})",
       R"({"template":{"spec":{"template":{"spec":{"containers":[{"name":"m","image":"a"}]}},"parallelism":2,"completions":2}}})",
       true},
      {"keys in the same unsorted order on both sides",
       R"({"template":{"spec":{"parallelism":2,"completions":2}}})",
       R"({"template":{"spec":{"parallelism":2,"completions":2}}})", true},
      {"keys in another order, one value changed",
       R"({"template":{"spec":{"completions":2,"parallelism":2}}})",
       R"({"template":{"spec":{"parallelism":3,"completions":2}}})", false},
      {"sorted keys, a key only on one side",
       R"({"template":{"spec":{"completions":2,"parallelism":2}}})",
       R"({"template":{"spec":{"backoffLimit":1,"completions":2,"parallelism":2}}})", false},
      // The key counts once, with its first value (as member() reads it), so that the
      // comparison is reflexive whatever it is given.
      {"a key held twice counts once, with its first value",
       R"({"template":{"metadata":{"labels":{"a":"1","a":"2"}}}})",
       R"({"template":{"metadata":{"labels":{"a":"1","a":"2"}}}})", true},
      {"a key held twice differs when its first value differs",
       R"({"template":{"metadata":{"labels":{"a":"1","a":"2"}}}})",
       R"({"template":{"metadata":{"labels":{"a":"3","a":"2"}}}})", false},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed a(c.old_js), b(c.new_js);
      CHECK(v::semantically_equal(&v::replicated_job_kind(), a.root(), b.root()) == c.equal);
      CHECK(v::semantically_equal(&v::replicated_job_kind(), b.root(), a.root()) == c.equal);
    }
  }
}

TEST_CASE("diff finds every change after the same prefix, deep and in later siblings",
          "[validation][semantic]") {
  const Parsed a(
      R"({"name":"w","replicas":1,"template":{"spec":{"completions":2,"parallelism":2,"template":{"spec":{
      "containers":[{"args":["x"],"command":["run"],"image":"a:1","name":"m"},{"image":"s:1","name":"side"}],
      "nodeSelector":{"pool":"a"}}}}}})");
  const Parsed b(
      R"({"name":"w","replicas":1,"template":{"spec":{"completions":2,"parallelism":2,"template":{"spec":{
      "containers":[{"args":["x"],"command":["run"],"image":"a:2","name":"m"},{"image":"s:2","name":"side"}],
      "nodeSelector":{"pool":"b"},"x-unknown":{"b":[1],"a":2}}}}}})");
  // x-unknown is absent on one side: a field the table does not know is reported whole.
  jobset_webhook::field::Path path("rj");
  std::vector<v::Change> changes;
  v::diff(&v::replicated_job_kind(), a.root(), b.root(), path, {}, changes);
  std::vector<std::string> paths;
  for (const auto& c : changes) paths.push_back(c.path);
  CHECK(paths == std::vector<std::string>{
                     "rj.template.spec.template.spec.containers[0].image",
                     "rj.template.spec.template.spec.containers[1].image",
                     "rj.template.spec.template.spec.nodeSelector[pool]",
                     "rj.template.spec.template.spec.x-unknown",
                 });
  CHECK(path.to_string() == "rj");
}

TEST_CASE("Quantities and times with the same text are equal, parseable or not",
          "[validation][semantic]") {
  struct TextCase {
    const char* name;
    const char* path;
    const char* value;
  };
  const std::vector<TextCase> cases = {
      {"a quantity", "template.spec.template.spec.containers[].resources.limits[]", R"("1500m")"},
      {"a quantity that does not parse",
       "template.spec.template.spec.containers[].resources.limits[]", R"("lots")"},
      {"a time", "template.metadata.creationTimestamp", R"("2024-01-01T00:00:00Z")"},
      {"a time that does not parse", "template.metadata.creationTimestamp", R"("yesterday")"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed a(wrap(c.value)), b(wrap(c.value));
      CHECK(v::semantically_equal(v::find_kind(c.path), value_of(a), value_of(b)));
    }
  }
}

// Go's Quantity.UnmarshalJSON (k8s.io/apimachinery/pkg/api/resource/quantity.go) reads a JSON
// number by its text and a string by its content, both through ParseQuantity; equality.Semantic
// compares quantities with Cmp. Integer fields decode with encoding/json into int32/int64, which
// reads 3.0 as 3 and never rounds through a double.
TEST_CASE("Quantities compare by value whatever their JSON type; integers compare exactly",
          "[validation][semantic]") {
  const char* limits = "template.spec.template.spec.containers[].resources.limits[]";
  const char* deadline = "template.spec.activeDeadlineSeconds";
  const std::vector<Case> cases = {
      {"number and string", limits, "1", R"("1")", true},
      {"number and milli string", limits, "4", R"("4000m")", true},
      {"float number and string", limits, "0.5", R"("500m")", true},
      {"exponent number and string", limits, "1e3", R"("1k")", true},
      {"number differs from string", limits, "1", R"("2")", false},
      {"octal read as 420 differs from 644", limits, "420", "644", false},
      {"absent value quantity is zero number",
       "template.spec.template.spec.containers[].env[].valueFrom.resourceFieldRef.divisor",
       "absent", "0", true},
      // ParseQuantity (apimachinery v0.37.2) caps BinarySI values only: `format == BinarySI &&
      // amount.Cmp(maxAllowed.Dec) > 0`.
      {"BinarySI capped at 2^63-1 (ParseQuantity)", limits, R"("10Ei")", R"("9223372036854775807")",
       true},
      {"DecimalSI not capped", limits, R"("100000000000000000000")", R"("9223372036854775807")",
       false},
      {"exponent form not capped", limits, R"("1e20")", R"("9223372036854775807")", false},
      {"int64 beyond 2^53 exactly", deadline, "9007199254740993", "9007199254740992", false},
      {"int64 beyond 2^53 against a float spelling", deadline, "9007199254740993",
       "9007199254740992.0", false},
      {"integral float is the integer", deadline, "3", "3.0", true},
      {"a fraction is not the integer", deadline, "3", "3.5", false},
      {"uint64 against its float spelling", "", "18446744073709551615", "18446744073709551615.0",
       false},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const v::FieldKind* kind = *c.path ? v::find_kind(c.path) : nullptr;
      if (*c.path) REQUIRE(kind != nullptr);
      const Parsed a(wrap(c.old_js)), b(wrap(c.new_js));
      CHECK(v::semantically_equal(kind, value_of(a), value_of(b)) == c.equal);
      CHECK(v::semantically_equal(kind, value_of(b), value_of(a)) == c.equal);
      if (c.equal) CHECK(v::fingerprint(kind, value_of(a)) == v::fingerprint(kind, value_of(b)));
    }
  }
}

TEST_CASE("Semantically equal values share a fingerprint", "[validation][semantic]") {
  const std::vector<Case> cases = {
      {"quantity by value", "template.spec.template.spec.containers[].resources.limits[]", R"("1")",
       R"("1000m")", true},
      {"value struct absent equals zero fields",
       "template.spec.template.spec.containers[].resources", "absent", R"({"limits":{}})", true},
      {"zero-valued members add nothing", "template.spec.template.spec.containers[]",
       R"({"name":"a"})", R"({"name":"a","workingDir":"","stdin":false,"args":[],"env":null})",
       true},
      {"key order does not matter", "template.spec.template.spec.containers[]",
       R"({"name":"a","image":"b"})", R"({"image":"b","name":"a"})", true},
      {"times as instants", "template.metadata.creationTimestamp", R"("2024-01-01T00:00:00Z")",
       R"("2024-01-01T01:00:00+01:00")", true},
      {"plain JSON with null members", "", R"({"x":{"b":1,"a":null}})", R"({"x":{"b":1.0}})", true},
      {"node selector term, keys reordered",
       "template.spec.template.spec.affinity.nodeAffinity."
       "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[]",
       R"({"matchExpressions":[{"key":"k","operator":"In","values":["a"]}]})",
       R"({"matchExpressions":[{"values":["a"],"operator":"In","key":"k"}],"matchFields":[]})",
       true},
      {"a key held twice counts once, first value", "", R"({"x":{"a":1,"b":2,"a":3}})",
       R"({"x":{"b":2,"a":1}})", true},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const v::FieldKind* kind = *c.path ? v::find_kind(c.path) : nullptr;
      if (*c.path) REQUIRE(kind != nullptr);
      const Parsed a(wrap(c.old_js)), b(wrap(c.new_js));
      REQUIRE(v::semantically_equal(kind, value_of(a), value_of(b)) == c.equal);
      CHECK(v::fingerprint(kind, value_of(a)) == v::fingerprint(kind, value_of(b)));
    }
  }
}

// Found by fuzz_update: two keys of invalid UTF-8 became the same key after U+FFFD
// replacement, and an object holding a key twice compared unequal to itself.
TEST_CASE("An object equals itself even when it holds a key twice", "[validation][semantic]") {
  const Parsed doc(R"({"v":{"b":1,"a":{"c":[1,{"d":1,"d":"x"}]},"b":{"e":2}}})");
  for (const v::FieldKind* kind : {static_cast<const v::FieldKind*>(nullptr),
                                   v::find_kind("template.spec.template.metadata.labels")}) {
    CHECK(v::semantically_equal(kind, value_of(doc), value_of(doc)));
    CHECK(v::json_equal(value_of(doc), value_of(doc)));
    std::vector<v::Change> changes;
    jobset_webhook::field::Path path("v");
    v::diff(kind, value_of(doc), value_of(doc), path, {}, changes);
    CHECK(changes.empty());
  }
}
