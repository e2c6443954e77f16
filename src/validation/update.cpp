#include "jobset_webhook/validation/update.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "field_kinds.h"
#include "quantity.h"
#include "scale_hazards.h"
#include "scale_safety.h"
#include "jobset_webhook/validation/read.h"
#include "jobset_webhook/scale_down_notice.h"
#include "jobset_webhook/upstream_jobset.h"
#include "jobset_webhook/validation/scale_warnings.h"
#include "semantic.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// spec fields that the CRD makes immutable with `self == oldSelf` CEL rules (registered as
// UPDATE-only in cel_evaluators.cpp: this diff is their evaluation). Like the API server, the rule
// applies only when the field is set on both sides.
constexpr std::string_view kCelImmutableSpecFields[] = {"network", "successPolicy", "failurePolicy",
                                                        "startupPolicy", "volumeClaimPolicies"};

// How many entries of a list change a message names before it says "and N more".
constexpr std::size_t kMaxNamedEntries = 3;
// How many entries with the same fingerprint one entry is compared with before it counts as
// missing (only a hash collision makes a second try necessary).
constexpr int kMaxFingerprintTries = 4;

// The CRD's default for an absent replicas, which the API server applies before any webhook.
constexpr std::int64_t kDefaultReplicas = 1;

// Why a new value of an int32 field (replicas, parallelism, completions) cannot be what Go
// decodes, or empty when it can (an integral number such as 3.0 is the integer the API server
// stores). Upstream fails to decode such a request; here it is an error at the field, so that it
// is never allowed.
std::string_view int32_problem(JsonView v) {
  if (const auto n = integer_of(v))
    return *n > kMaxInt32 ? "must be less than or equal to 2147483647" : "";
  if (v.type() == element_type::UINT64) return "must be less than or equal to 2147483647";
  return "must be an integer";
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
  if (name && name->type() == element_type::STRING)
    return field::BadValue::string(std::string_view(*name)).printed();
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

// Entries of `from` that `to` lacks, as labels: by name when every entry has one (a set lookup,
// so a list of 10,000 ReplicatedJobs costs no more than reading it), else by semantic equality,
// each entry looked up by its fingerprint among `to`'s sorted ones. Either way the cost is
// n log n plus one pass over each entry, whatever the entries hold: no pair is compared unless
// their fingerprints match. Only the first kMaxNamedEntries labels are written out; the rest are
// counted (empty labels).
std::vector<std::string> missing_from(const std::vector<JsonView>& from,
                                      const std::vector<JsonView>& to, const FieldKind* element) {
  const auto all_named = [](const std::vector<JsonView>& entries) {
    return std::all_of(entries.begin(), entries.end(), [](const JsonView& e) {
      const auto name = member(e, "name");
      return name && name->type() == element_type::STRING;
    });
  };
  std::vector<std::string> labels;
  const auto add = [&](JsonView e) {
    labels.push_back(labels.size() < kMaxNamedEntries ? entry_label(e) : std::string());
  };
  if (all_named(from) && all_named(to)) {
    std::unordered_set<std::string_view> names;
    for (const auto& e : to) names.insert(std::string_view(*member(e, "name")));
    for (const auto& e : from) {
      if (!names.contains(std::string_view(*member(e, "name")))) add(e);
    }
    return labels;
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> index;
  index.reserve(to.size());
  for (std::size_t j = 0; j < to.size(); ++j) index.emplace_back(fingerprint(element, to[j]), j);
  std::sort(index.begin(), index.end());
  for (const auto& e : from) {
    const std::uint64_t print = fingerprint(element, e);
    auto it = std::lower_bound(index.begin(), index.end(), std::pair{print, std::size_t{0}});
    // Entries that share a fingerprint are equal but for a hash collision: a few tries settle it.
    bool found = false;
    for (int tries = 0;
         !found && tries < kMaxFingerprintTries && it != index.end() && it->first == print;
         ++tries, ++it) {
      found = semantically_equal(element, e, to[it->second]);
    }
    if (!found) add(e);
  }
  return labels;
}

// "added "c"; removed "b"" for a list that changed length.
std::string describe_length_change(const Change& change) {
  const auto old_entries = items_of(change.old_value);
  const auto new_entries = items_of(change.new_value);
  const FieldKind* element = change.kind != nullptr ? change.kind->element.get() : nullptr;
  const auto added = missing_from(new_entries, old_entries, element);
  const auto removed = missing_from(old_entries, new_entries, element);
  std::string out;
  if (!added.empty()) out += "added " + join_labels(added);
  if (!removed.empty()) out += (out.empty() ? "removed " : "; removed ") + join_labels(removed);
  if (out.empty()) {
    out = std::to_string(old_entries.size()) + " entries became " +
          std::to_string(new_entries.size());
  }
  return out;
}

void append_changes(const std::vector<Change>& changes, std::string_view detail,
                    field::ErrorList& errs) {
  for (const auto& change : changes) {
    if (change.what == Change::What::kListLength) {
      std::string d(detail);
      d += ": ";
      d += describe_length_change(change);
      errs.push_back({field::ErrorType::kForbidden, change.path, std::nullopt, std::move(d)});
    } else {
      errs.push_back({field::ErrorType::kInvalid, change.path, printed_new_value(change),
                      std::string(detail)});
    }
  }
}

void diff_into(const FieldKind* kind, MaybeJson old_v, MaybeJson new_v, field::Path path,
               const DiffOptions& options, std::string_view detail, field::ErrorList& errs) {
  // No equality pass first: diff() passes over the same values on both sides without building a
  // path (semantic.cpp), so an equality pass would only walk a changed value twice.
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
  for (const auto c : items_of(member(member(old_js, "status"), "conditions"))) {
    const auto type = string_or_empty(member(c, "type"));
    if ((type == "Completed" || type == "Failed") && string_or_empty(member(c, "status")) == "True")
      return true;
  }
  return false;
}

// Nodes of the kind table that the exceptions leave out, looked up once.
struct ExceptionNodes {
  const FieldKind* replicas;
  const FieldKind* depends_on;
  std::vector<const FieldKind*> suspended;  // mutable while the JobSet is suspended (Kueue)
  std::vector<const FieldKind*> elastic;    // parallelism and completions
};

const ExceptionNodes& exception_nodes() {
  static const ExceptionNodes nodes{
      replicated_job_kind().field("replicas"),
      replicated_job_kind().field("dependsOn"),
      {find_kind("template.spec.template.metadata.labels"),
       find_kind("template.spec.template.metadata.annotations"),
       find_kind("template.spec.template.spec.nodeSelector"),
       find_kind("template.spec.template.spec.tolerations"),
       find_kind("template.spec.template.spec.schedulingGates")},
      {find_kind("template.spec.parallelism"), find_kind("template.spec.completions")},
  };
  return nodes;
}

struct Context {
  const Policy& policy;
  bool suspended;
  bool terminal;
  field::ErrorList& errs;
  std::vector<ReplicasChange> scaled;
};

// Upstream's ElasticJobSet checks for one Indexed ReplicatedJob (policy elastic.parallelism).
void check_elastic_parallelism(MaybeJson old_rj, MaybeJson new_rj, const field::Path& rj_path,
                               Context& ctx) {
  const auto old_spec = member(member(old_rj, "template"), "spec");
  const auto new_spec = member(member(new_rj, "template"), "spec");
  const auto old_p = member(old_spec, "parallelism"), new_p = member(new_spec, "parallelism");
  const auto old_c = member(old_spec, "completions"), new_c = member(new_spec, "completions");
  const bool p_changed = !json_equal(old_p, new_p);
  const bool c_changed = !json_equal(old_c, new_c);
  if (!p_changed && !c_changed) return;
  const auto spec_path = rj_path.child("template", "spec");
  if (ctx.terminal) {
    ctx.errs.push_back(field::forbidden(spec_path,
                                        "Cannot mutate parallelism or completions when JobSet is "
                                        "in a terminal state (Completed or Failed)"));
    return;
  }
  // Upstream's checks, plus what upstream's decoder refuses before them: a value that is not an
  // int32 (2.5, "4", 2147483648) is an error, never allowed.
  const auto check_count = [&](bool changed, MaybeJson value, std::string_view name,
                               std::string_view below_one) {
    if (!changed || !value) return;  // removed: upstream's nil checks let it pass
    const auto n = integer_of(value);
    if (n && *n < 1) {
      ctx.errs.push_back(
          field::invalid(spec_path.child(name), field::BadValue::of(*value), below_one));
    } else if (const auto problem = int32_problem(*value); !problem.empty()) {
      ctx.errs.push_back(
          field::invalid(spec_path.child(name), field::BadValue::of(*value), problem));
    }
  };
  check_count(p_changed, new_p, "parallelism", "parallelism must be >= 1");
  check_count(c_changed, new_c, "completions", "completions must be >= 1");
  const auto p = integer_of(new_p), c = integer_of(new_c);
  if (p && c && *p != *c) {
    ctx.errs.push_back(
        field::invalid(spec_path.child("completions"), field::BadValue::of(*new_c),
                       "completions must be equal to parallelism for Elastic Indexed Jobs"));
  }
}

void check_replicas(MaybeJson old_rj, MaybeJson new_rj, std::size_t index,
                    const field::Path& rj_path, Context& ctx) {
  const auto old_r = member(old_rj, "replicas"), new_r = member(new_rj, "replicas");
  const auto old_n = old_r ? integer_of(old_r) : std::optional<std::int64_t>(kDefaultReplicas);
  const auto new_n = new_r ? integer_of(new_r) : std::optional<std::int64_t>(kDefaultReplicas);
  if (old_n && new_n ? *old_n == *new_n : json_equal(old_r, new_r)) return;
  const auto path = rj_path.child("replicas");
  // Upstream's controller reconciles a finished JobSet no more (jobSetFinished), so a scale would
  // change nothing; upstream's ElasticJobSet rule refuses parallelism changes then, with these
  // words.
  if (ctx.terminal) {
    ctx.errs.push_back(field::forbidden(
        path,
        "Cannot mutate replicas when JobSet is in a terminal state (Completed or Failed): the "
        "JobSet controller creates and deletes no Job of a finished JobSet; create a new JobSet "
        "to run again"));
    return;
  }
  if (new_n && *new_n < 0) {
    ctx.errs.push_back(field::invalid(path, field::BadValue::integer(*new_n),
                                      "must be greater than or equal to 0"));
  } else if (const auto problem = new_r ? int32_problem(*new_r) : ""; !problem.empty()) {
    ctx.errs.push_back(field::invalid(path, field::BadValue::of(*new_r), problem));
  } else {
    ctx.scaled.push_back(
        {std::string(string_or_empty(member(new_rj, "name"))), old_n.value_or(0), *new_n, index});
  }
}

// Compares one ReplicatedJob with its old self (matched by name), at the new index.
void check_replicated_job(MaybeJson old_rj, MaybeJson new_rj, std::size_t index, Context& ctx) {
  const auto rj_path = field::Path("spec").child("replicatedJobs").index(index);
  const FieldKind& rj_kind = replicated_job_kind();
  const ExceptionNodes& nodes = exception_nodes();
  // dependsOn has a message of its own (below); replicas is checked by check_replicas.
  std::vector<const FieldKind*> ignored{nodes.depends_on};
  if (ctx.policy.elastic.replicas) {
    ignored.push_back(nodes.replicas);
    check_replicas(old_rj, new_rj, index, rj_path, ctx);
  }
  if (ctx.suspended) ignored.insert(ignored.end(), nodes.suspended.begin(), nodes.suspended.end());
  const auto completion_mode = member(member(member(new_rj, "template"), "spec"), "completionMode");
  if (ctx.policy.elastic.parallelism && string_or_empty(completion_mode) == "Indexed") {
    check_elastic_parallelism(old_rj, new_rj, rj_path, ctx);
    ignored.insert(ignored.end(), nodes.elastic.begin(), nodes.elastic.end());
  }
  diff_into(&rj_kind, old_rj, new_rj, rj_path, DiffOptions{ignored}, kFieldImmutable, ctx.errs);

  // The CRD's CEL rule catches a dependsOn change first when both sides set it; a dependsOn that
  // appears or disappears only upstream's webhook rejects.
  const auto old_deps = member(old_rj, "dependsOn"), new_deps = member(new_rj, "dependsOn");
  if (!old_deps && !new_deps) return;  // the common case: no path to build
  diff_into(rj_kind.field("dependsOn"), old_deps, new_deps, rj_path.child("dependsOn"), {},
            old_deps && new_deps ? kValueImmutable : kFieldImmutable, ctx.errs);
}

std::vector<std::string_view> names_of(const std::vector<JsonView>& entries) {
  std::vector<std::string_view> out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.push_back(string_or_empty(member(e, "name")));
  return out;
}

// "replicatedJobs were reordered: [0] was "a", now "b"": the first position that differs, so
// that the message stays short however long the list is.
std::string describe_reorder(const std::vector<std::string_view>& old_names,
                             const std::vector<std::string_view>& new_names) {
  std::size_t i = 0;
  while (old_names[i] == new_names[i]) ++i;
  return "replicatedJobs were reordered: [" + std::to_string(i) + "] was " +
         field::BadValue::string(old_names[i]).printed() + ", now " +
         field::BadValue::string(new_names[i]).printed();
}

// The list keeps its length and order: entries are matched by name, as the CRD's listMapKey and
// upstream's webhook match them.
void check_replicated_jobs(MaybeJson old_spec, MaybeJson new_spec, Context& ctx) {
  const auto old_list = items_of(member(old_spec, "replicatedJobs"));
  const auto new_list = items_of(member(new_spec, "replicatedJobs"));
  const auto old_names = names_of(old_list), new_names = names_of(new_list);
  // Same names in the same order: entries are compared position by position. That is matching
  // by name while names are unique, as the CRD's list-map key keeps them, and it stays right for a
  // crafted object that repeats a name or leaves names out, where a by-name lookup would compare
  // every namesake with the first one.
  if (old_names == new_names) {
    for (std::size_t i = 0; i < new_list.size(); ++i)
      check_replicated_job(old_list[i], new_list[i], i, ctx);
    return;
  }
  const auto list_path = field::Path("spec").child("replicatedJobs");
  auto sorted_old = old_names, sorted_new = new_names;
  std::sort(sorted_old.begin(), sorted_old.end());
  std::sort(sorted_new.begin(), sorted_new.end());
  std::string detail(kFieldImmutable);
  if (sorted_old == sorted_new) {
    detail += ": " + describe_reorder(old_names, new_names);
  } else {
    Change change{Change::What::kListLength,
                  {},
                  member(old_spec, "replicatedJobs"),
                  member(new_spec, "replicatedJobs"),
                  nullptr};
    detail += ": " + describe_length_change(change);
  }
  ctx.errs.push_back(field::forbidden(list_path, detail));
  std::unordered_map<std::string_view, JsonView> old_by_name;
  for (const auto& rj : old_list) old_by_name.emplace(string_or_empty(member(rj, "name")), rj);
  for (std::size_t i = 0; i < new_list.size(); ++i) {
    const auto it = old_by_name.find(string_or_empty(member(new_list[i], "name")));
    if (it != old_by_name.end()) check_replicated_job(it->second, new_list[i], i, ctx);
  }
}

// A hazard the policy refuses, at the replicas it is about: the warning's words from "scaled",
// and the policy entry that refused it.
field::Error denied_hazard(const Hazard& h) {
  const std::string head = scale_warning_head(*h.change);
  const std::size_t from =
      scale_warning_prefix(h.change->replicated_job).size() - std::string_view("scaled ").size();
  return field::forbidden(replicas_path(*h.change),
                          head.substr(from) + h.detail +
                              "; the policy refuses it (scaleHazards.deny: " +
                              std::string(scale_hazard_name(h.kind)) + ")");
}

}  // namespace

UpdateFindings validate_update(JsonView old_js, JsonView new_js, const Policy& policy) {
  UpdateFindings findings;
  findings.errors = validate_quantity_decoding(new_js);  // upstream's decoder fails before any rule
  if (!findings.errors.empty()) return findings;
  const auto old_spec = member(old_js, "spec"), new_spec = member(new_js, "spec");
  Context ctx{policy,
              is_suspended(old_js) || is_suspended(new_js),
              is_terminal(old_js),
              findings.errors,
              {}};

  check_replicated_jobs(old_spec, new_spec, ctx);

  // managedBy is a *string upstream: unset and "" differ.
  const auto old_managed = member(old_spec, "managedBy"),
             new_managed = member(new_spec, "managedBy");
  if (!json_equal(old_managed, new_managed)) {
    findings.errors.push_back(
        field::invalid(field::Path("spec").child("managedBy"),
                       new_managed ? field::BadValue::of(*new_managed) : field::BadValue::null(),
                       kFieldImmutable));
  }

  for (const auto name : kCelImmutableSpecFields) {
    const auto old_v = member(old_spec, name), new_v = member(new_spec, name);
    if (old_v && new_v)
      diff_into(nullptr, old_v, new_v, field::Path("spec").child(name), {}, kValueImmutable,
                findings.errors);
  }

  if (findings.errors.empty() && !ctx.scaled.empty())
    check_scale_safety(old_js, new_js, ctx.scaled, policy, findings.errors);

  if (!findings.errors.empty()) return findings;
  // Upstream's controller leaves a JobSet that names another manager to it
  // (managedByExternalController), and so does the scale-down controller: no hazard of upstream's
  // controller applies.
  auto managed_by = string_or_empty(new_managed);
  if (managed_by == kJobSetControllerName) managed_by = {};
  field::WarningList hazards;
  std::size_t hazards_elided = 0;
  if (managed_by.empty()) {
    for (const Hazard& h : scale_hazards(old_js, new_js, ctx.scaled, policy)) {
      if (policy.denies(h.kind)) {
        findings.errors.push_back(denied_hazard(h));
      } else if (h.elided) {
        ++hazards_elided;
      } else {
        hazards.push_back(h.warning());
      }
    }
  }
  if (!findings.errors.empty()) return findings;
  // The notice the controller will give: the JobSet's own annotation, else the policy's.
  const auto notice_annotation =
      member(member(member(new_js, "metadata"), "annotations"), kNoticeSecondsAnnotation);
  const std::int64_t notice_seconds =
      notice_annotation ? parse_notice_seconds(string_or_empty(notice_annotation))
                              .value_or(ctx.policy.elastic.scale_down_notice_seconds)
                        : ctx.policy.elastic.scale_down_notice_seconds;
  findings.warnings =
      scale_warnings(string_or_empty(member(member(new_js, "metadata"), "name")), ctx.scaled,
                     ctx.policy.elastic.scale_down == Policy::ScaleDown::kController, managed_by,
                     hazards, hazards_elided, notice_seconds);
  return findings;
}

}  // namespace jobset_webhook::validation
