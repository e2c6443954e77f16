#include "jobset_webhook/validation/update.h"

#include <algorithm>
#include <unordered_map>

#include "jobset_webhook/validation/field_kinds.h"
#include "jobset_webhook/validation/scale_warnings.h"
#include "jobset_webhook/validation/semantic.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// spec fields that the CRD makes immutable with `self == oldSelf` CEL rules. Like the API server,
// the rule applies only when the field is set on both sides.
constexpr std::string_view kCelImmutableSpecFields[] = {
    "network", "successPolicy", "failurePolicy", "startupPolicy", "volumeClaimPolicies"};

// How many entries of a list change a message names before it says "and N more".
constexpr std::size_t kMaxNamedEntries = 3;

std::string_view string_or_empty(MaybeJson v) {
  return v && v->type() == element_type::STRING ? std::string_view(*v) : std::string_view();
}

std::vector<JsonView> elements(MaybeJson list) {
  std::vector<JsonView> out;
  if (list && list->type() == element_type::ARRAY) {
    for (const auto e : JsonArrayView(*list)) out.push_back(e);
  }
  return out;
}

std::optional<std::int64_t> integer(MaybeJson v) {
  if (!v) return std::nullopt;
  std::int64_t n = 0;
  if (v->get_int64().get(n) != simdjson::SUCCESS) return std::nullopt;
  return n;
}

// The value printed for the new side of a changed leaf. An absent value-typed scalar is its Go
// zero value, which is what upstream would have compared and printed.
field::BadValue printed_new_value(const Change& change) {
  if (change.new_value) return field::BadValue::of(*change.new_value);
  const FieldKind* kind = change.kind;
  if (kind != nullptr && kind->shape == Shape::kScalar && !kind->pointer) {
    switch (kind->scalar) {
      case ScalarKind::kString: return field::BadValue::string("");
      case ScalarKind::kQuantity: return field::BadValue::string("0");
      case ScalarKind::kInteger:
      case ScalarKind::kIntOrString: return field::BadValue::integer(0);
      case ScalarKind::kBool: return field::BadValue::boolean(false);
      case ScalarKind::kTime:
      case ScalarKind::kRawJson: break;
    }
  }
  return field::BadValue::null();
}

// "\"sidecar\"" for an entry with a name, else the entry itself, elided.
std::string entry_label(JsonView entry) {
  const auto name = member(entry, "name");
  if (name && name->type() == element_type::STRING) return field::go_quote(std::string_view(*name));
  return field::BadValue::of(entry).printed();
}

std::string join_labels(const std::vector<std::string>& labels) {
  std::string out;
  const std::size_t shown = std::min(labels.size(), kMaxNamedEntries);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += labels[i];
  }
  if (labels.size() > shown) out += " and " + std::to_string(labels.size() - shown) + " more";
  return out;
}

// Entries of `from` with no semantically equal entry in `to` (by name when entries have names).
std::vector<std::string> missing_from(const std::vector<JsonView>& from, const std::vector<JsonView>& to,
                                      const FieldKind* element) {
  std::vector<std::string> labels;
  for (const auto& e : from) {
    const bool found = std::any_of(to.begin(), to.end(), [&](const JsonView& other) {
      const auto name = member(e, "name");
      if (name) return json_equal(name, member(other, "name"));
      return semantically_equal(element, e, other);
    });
    if (!found) labels.push_back(entry_label(e));
  }
  return labels;
}

// "added "c"; removed "b"" for a list that changed length.
std::string describe_length_change(const Change& change) {
  const auto old_entries = elements(change.old_value);
  const auto new_entries = elements(change.new_value);
  const FieldKind* element = change.kind != nullptr ? change.kind->element.get() : nullptr;
  const auto added = missing_from(new_entries, old_entries, element);
  const auto removed = missing_from(old_entries, new_entries, element);
  std::string out;
  if (!added.empty()) out += "added " + join_labels(added);
  if (!removed.empty()) out += (out.empty() ? "removed " : "; removed ") + join_labels(removed);
  if (out.empty()) {
    out = std::to_string(old_entries.size()) + " entries became " + std::to_string(new_entries.size());
  }
  return out;
}

void append_changes(const std::vector<Change>& changes, std::string_view detail, field::ErrorList& errs) {
  for (const auto& change : changes) {
    if (change.what == Change::What::kListLength) {
      std::string d(detail);
      d += ": ";
      d += describe_length_change(change);
      errs.push_back({field::ErrorType::kForbidden, change.path, std::nullopt, std::move(d)});
    } else {
      errs.push_back({field::ErrorType::kInvalid, change.path, printed_new_value(change), std::string(detail)});
    }
  }
}

void diff_into(const FieldKind* kind, MaybeJson old_v, MaybeJson new_v, field::Path path,
               const DiffOptions& options, std::string_view detail, field::ErrorList& errs) {
  if (semantically_equal(kind, old_v, new_v, options)) return;  // the common case builds no paths
  std::vector<Change> changes;
  diff(kind, old_v, new_v, path, options, changes);
  append_changes(changes, detail, errs);
}

bool is_suspended(MaybeJson js) {
  const auto suspend = member(member(js, "spec"), "suspend");
  return suspend && suspend->type() == element_type::BOOL && bool(*suspend);
}

// Upstream's terminal state for elastic scaling: a Completed or Failed condition that is True.
bool is_terminal(MaybeJson old_js) {
  for (const auto c : elements(member(member(old_js, "status"), "conditions"))) {
    const auto type = string_or_empty(member(c, "type"));
    if ((type == "Completed" || type == "Failed") && string_or_empty(member(c, "status")) == "True") return true;
  }
  return false;
}

struct Context {
  const Policy& policy;
  bool suspended;
  bool terminal;
  field::ErrorList& errs;
  std::vector<ReplicasChange> scaled;
};

// Upstream's ElasticJobSet checks for one Indexed ReplicatedJob (policy elastic.parallelism).
void check_elastic_parallelism(MaybeJson old_rj, MaybeJson new_rj, const field::Path& rj_path, Context& ctx) {
  const auto old_spec = member(member(old_rj, "template"), "spec");
  const auto new_spec = member(member(new_rj, "template"), "spec");
  const auto old_p = member(old_spec, "parallelism"), new_p = member(new_spec, "parallelism");
  const auto old_c = member(old_spec, "completions"), new_c = member(new_spec, "completions");
  const bool p_changed = !json_equal(old_p, new_p);
  const bool c_changed = !json_equal(old_c, new_c);
  if (!p_changed && !c_changed) return;
  const auto spec_path = rj_path.child("template", "spec");
  if (ctx.terminal) {
    ctx.errs.push_back(field::forbidden(
        spec_path, "Cannot mutate parallelism or completions when JobSet is in a terminal state (Completed or Failed)"));
    return;
  }
  const auto p = integer(new_p), c = integer(new_c);
  if (p_changed && p && *p < 1) {
    ctx.errs.push_back(field::invalid(spec_path.child("parallelism"), field::BadValue::of(*new_p), "parallelism must be >= 1"));
  }
  if (c_changed && c && *c < 1) {
    ctx.errs.push_back(field::invalid(spec_path.child("completions"), field::BadValue::of(*new_c), "completions must be >= 1"));
  }
  if (p && c && *p != *c) {
    ctx.errs.push_back(field::invalid(spec_path.child("completions"), field::BadValue::of(*new_c),
                                      "completions must be equal to parallelism for Elastic Indexed Jobs"));
  }
}

void check_replicas(MaybeJson old_rj, MaybeJson new_rj, const field::Path& rj_path, Context& ctx) {
  const auto old_r = member(old_rj, "replicas"), new_r = member(new_rj, "replicas");
  const FieldKind* kind = replicated_job_kind().field("replicas");
  if (semantically_equal(kind, old_r, new_r)) return;
  const auto path = rj_path.child("replicas");
  const std::int64_t old_n = integer(old_r).value_or(0);
  const auto new_n = integer(new_r);
  if (!new_n) {
    ctx.errs.push_back(field::invalid(path, new_r ? field::BadValue::of(*new_r) : field::BadValue::integer(0),
                                      "must be an integer"));
  } else if (*new_n < 0) {
    ctx.errs.push_back(field::invalid(path, field::BadValue::integer(*new_n), "must be greater than or equal to 0"));
  } else {
    ctx.scaled.push_back({std::string(string_or_empty(member(new_rj, "name"))), old_n, *new_n});
  }
}

// Compares one ReplicatedJob with its old self (matched by name), at the new index.
void check_replicated_job(MaybeJson old_rj, MaybeJson new_rj, std::size_t index, Context& ctx) {
  const auto rj_path = field::Path("spec").child("replicatedJobs").index(index);
  const FieldKind& rj_kind = replicated_job_kind();
  std::vector<const FieldKind*> ignored;
  // dependsOn has a message of its own (below); replicas is checked by check_replicas.
  ignored.push_back(rj_kind.field("dependsOn"));
  if (ctx.policy.elastic.replicas) {
    ignored.push_back(rj_kind.field("replicas"));
    check_replicas(old_rj, new_rj, rj_path, ctx);
  }
  if (ctx.suspended) {
    for (const auto* path : {"template.spec.template.metadata.labels", "template.spec.template.metadata.annotations",
                             "template.spec.template.spec.nodeSelector", "template.spec.template.spec.tolerations",
                             "template.spec.template.spec.schedulingGates"}) {
      ignored.push_back(find_kind(path));
    }
  }
  const auto completion_mode = member(member(member(new_rj, "template"), "spec"), "completionMode");
  if (ctx.policy.elastic.parallelism && string_or_empty(completion_mode) == "Indexed") {
    check_elastic_parallelism(old_rj, new_rj, rj_path, ctx);
    ignored.push_back(find_kind("template.spec.parallelism"));
    ignored.push_back(find_kind("template.spec.completions"));
  }
  diff_into(&rj_kind, old_rj, new_rj, rj_path, DiffOptions{ignored}, kFieldImmutable, ctx.errs);

  // The CRD's CEL rule catches a dependsOn change first when both sides set it; a dependsOn that
  // appears or disappears only upstream's webhook rejects.
  const auto old_deps = member(old_rj, "dependsOn"), new_deps = member(new_rj, "dependsOn");
  diff_into(rj_kind.field("dependsOn"), old_deps, new_deps, rj_path.child("dependsOn"), {},
            old_deps && new_deps ? kValueImmutable : kFieldImmutable, ctx.errs);
}

std::vector<std::string> quoted_names(const std::vector<JsonView>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(field::go_quote(string_or_empty(member(e, "name"))));
  return out;
}

std::string join_all(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The list keeps its length and order: entries are matched by name, as the CRD's listMapKey and
// upstream's webhook match them.
void check_replicated_jobs(MaybeJson old_spec, MaybeJson new_spec, Context& ctx) {
  const auto old_list = elements(member(old_spec, "replicatedJobs"));
  const auto new_list = elements(member(new_spec, "replicatedJobs"));
  const auto old_names = quoted_names(old_list), new_names = quoted_names(new_list);
  const auto list_path = field::Path("spec").child("replicatedJobs");
  if (old_names != new_names) {
    auto sorted_old = old_names, sorted_new = new_names;
    std::sort(sorted_old.begin(), sorted_old.end());
    std::sort(sorted_new.begin(), sorted_new.end());
    std::string detail(kFieldImmutable);
    if (sorted_old == sorted_new) {
      detail += ": replicatedJobs were reordered from [" + join_all(old_names) + "] to [" + join_all(new_names) + "]";
    } else {
      Change change{Change::What::kListLength, {}, member(old_spec, "replicatedJobs"),
                    member(new_spec, "replicatedJobs"), nullptr};
      detail += ": " + describe_length_change(change);
    }
    ctx.errs.push_back(field::forbidden(list_path, detail));
  }
  std::unordered_map<std::string_view, JsonView> old_by_name;
  for (const auto& rj : old_list) old_by_name.emplace(string_or_empty(member(rj, "name")), rj);
  for (std::size_t i = 0; i < new_list.size(); ++i) {
    const auto it = old_by_name.find(string_or_empty(member(new_list[i], "name")));
    if (it != old_by_name.end()) check_replicated_job(it->second, new_list[i], i, ctx);
  }
}

}  // namespace

UpdateFindings validate_update(JsonView old_js, JsonView new_js, const Policy& policy) {
  UpdateFindings findings;
  const auto old_spec = member(old_js, "spec"), new_spec = member(new_js, "spec");
  Context ctx{policy, is_suspended(old_js) || is_suspended(new_js), is_terminal(old_js), findings.errors, {}};

  check_replicated_jobs(old_spec, new_spec, ctx);

  // managedBy is a *string upstream: unset and "" differ.
  const auto old_managed = member(old_spec, "managedBy"), new_managed = member(new_spec, "managedBy");
  if (!json_equal(old_managed, new_managed)) {
    findings.errors.push_back(field::invalid(field::Path("spec").child("managedBy"),
                                             new_managed ? field::BadValue::of(*new_managed) : field::BadValue::null(),
                                             kFieldImmutable));
  }

  for (const auto name : kCelImmutableSpecFields) {
    const auto old_v = member(old_spec, name), new_v = member(new_spec, name);
    if (old_v && new_v) diff_into(nullptr, old_v, new_v, field::Path("spec").child(name), {}, kValueImmutable, findings.errors);
  }

  if (findings.errors.empty()) {
    findings.warnings = scale_warnings(string_or_empty(member(member(new_js, "metadata"), "name")), ctx.scaled);
  }
  return findings;
}

}  // namespace jobset_webhook::validation
