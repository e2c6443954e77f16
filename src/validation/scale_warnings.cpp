#include "jobset_webhook/validation/scale_warnings.h"

#include "jobset_webhook/field/value.h"
#include "jobset_webhook/scale_down_notice.h"

namespace jobset_webhook::validation {
namespace {

std::string warning_for(std::string_view jobset, const ReplicasChange& c,
                        bool scale_down_controller, std::string_view managed_by,
                        std::int64_t notice_seconds) {
  const std::string head = scale_warning_head(c);
  if (!managed_by.empty()) {
    const std::string manager = field::go_quote(managed_by);
    if (c.new_replicas < c.old_replicas) {
      const bool one = c.old_replicas - c.new_replicas == 1;
      return head + manager + " manages this JobSet (spec.managedBy): the JobSet controller" +
             (scale_down_controller ? " and the scale-down controller delete" : " deletes") +
             " no Job; " + job_run(jobset, c.replicated_job, c.new_replicas, c.old_replicas - 1) +
             (one ? " is" : " are") + " for it to delete";
    }
    const bool one = c.new_replicas - c.old_replicas == 1;
    return head + manager + " manages this JobSet (spec.managedBy): the JobSet controller " +
           "creates no Job; " +
           job_run(jobset, c.replicated_job, c.old_replicas, c.new_replicas - 1) +
           (one ? " is" : " are") + " for it to create";
  }
  if (c.new_replicas < c.old_replicas && scale_down_controller) {
    const bool one = c.old_replicas - c.new_replicas == 1;
    std::string notice;
    if (notice_seconds > 0) {
      notice = ", after a notice of " + notice_text(notice_seconds) +
               " to the Jobs and Pods of \"" + c.replicated_job + "\"";
    }
    return head + "the scale-down controller will delete " +
           job_run(jobset, c.replicated_job, c.new_replicas, c.old_replicas - 1) +
           (one ? "" : ", highest index first") + notice;
  }
  if (c.new_replicas < c.old_replicas) {
    const bool one = c.old_replicas - c.new_replicas == 1;
    return head + job_run(jobset, c.replicated_job, c.new_replicas, c.old_replicas - 1) +
           (one ? " keeps" : " keep") + " running (the JobSet controller deletes none); delete " +
           (one ? "it" : "them") + " to release " + (one ? "its" : "their") + " resources";
  }
  return head + "the JobSet controller will create " +
         job_run(jobset, c.replicated_job, c.old_replicas, c.new_replicas - 1);
}

}  // namespace

std::string scale_warning_prefix(std::string_view replicated_job) {
  return "replicatedJob \"" + std::string(replicated_job) + "\" scaled ";
}

std::string scale_warning_head(const ReplicasChange& c) {
  return scale_warning_prefix(c.replicated_job) +
         (c.new_replicas < c.old_replicas ? "down from " : "up from ") +
         std::to_string(c.old_replicas) + " to " + std::to_string(c.new_replicas) + ": ";
}

std::string child_job_name(std::string_view jobset, std::string_view replicated_job,
                           std::int64_t index) {
  std::string name(jobset);
  name += '-';
  name += replicated_job;
  name += '-';
  name += std::to_string(index);
  return name;
}

std::string job_run(std::string_view jobset, std::string_view rjob, std::int64_t first,
                    std::int64_t last) {
  const std::int64_t count = last - first + 1;
  if (count == 1) return "Job " + child_job_name(jobset, rjob, first);
  if (count <= 3) {
    std::string out = "Jobs ";
    for (std::int64_t i = first; i <= last; ++i) {
      if (i > first) out += ", ";
      out += child_job_name(jobset, rjob, i);
    }
    return out;
  }
  return "Jobs " + child_job_name(jobset, rjob, first) + " ... " +
         child_job_name(jobset, rjob, last) + " (" + std::to_string(count) + " Jobs)";
}

field::Path replicas_path(const ReplicasChange& c) {
  return field::Path("spec").child("replicatedJobs").index(c.index).child("replicas");
}

field::WarningList scale_warnings(std::string_view jobset,
                                  const std::vector<ReplicasChange>& changes,
                                  bool scale_down_controller, std::string_view managed_by,
                                  const field::WarningList& hazards, std::size_t hazards_elided,
                                  std::int64_t notice_seconds) {
  field::WarningList out;
  std::size_t total = 0;
  // Keeps room for the closing summary line.
  const auto fits = [&](const std::string& w) {
    return total + w.size() <= kMaxWarningsBytes - 64;
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    std::string w =
        warning_for(jobset, changes[i], scale_down_controller, managed_by, notice_seconds);
    if (!fits(w)) {
      out.push_back(field::object_warning("and " + std::to_string(changes.size() - i) +
                                          " more replicatedJobs rescaled"));
      return out;
    }
    total += w.size();
    out.push_back(field::warning(replicas_path(changes[i]), std::move(w)));
  }
  for (std::size_t i = 0; i < hazards.size(); ++i) {
    if (!fits(hazards[i].text)) {
      out.push_back(field::object_warning("and " +
                                          std::to_string(hazards.size() - i + hazards_elided) +
                                          " more warnings about what the scale changes"));
      return out;
    }
    total += hazards[i].text.size();
    out.push_back(hazards[i]);
  }
  return out;
}

}  // namespace jobset_webhook::validation
