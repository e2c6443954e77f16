// R14: spec.volumeClaimPolicies on CREATE (upstream's validateVolumeClaimPolicies), without the
// lookup of an existing PVC of the same name: that needs the cluster, which this webhook does not
// read. Upstream then requires the existing PVC's spec to equal the template's and the retention
// policy to be Retain.

#include "names.h"
#include "create_internal.h"

namespace jobset_webhook::validation {
namespace {

constexpr std::size_t kMaxVolumeClaimLength = 63;

bool mounts(MaybeJson containers, std::string_view volume) {
  for (const auto& c : items_of(containers)) {
    for (const auto& m : items_of(member(c, "volumeMounts"))) {
      if (string_or_empty(member(m, "name")) == volume) return true;
    }
  }
  return false;
}

// The pods must mount the claim somewhere and must not declare a volume of the same name.
void validate_replicated_jobs_volume_claims(const CreateInput& in, std::string_view claim,
                                            field::ErrorList& errs) {
  bool mounted = false;
  for (std::size_t r = 0; r < in.replicated_jobs.size(); ++r) {
    const MaybeJson pod_spec = at(job_spec(in.replicated_jobs[r]), {"template", "spec"});
    const auto volumes = items_of(member(pod_spec, "volumes"));
    for (std::size_t v = 0; v < volumes.size(); ++v) {
      const auto volume = string_or_empty(member(volumes[v], "name"));
      if (volume != claim) continue;
      const auto path = field::Path("spec")
                            .child("replicatedJobs")
                            .index(r)
                            .child("template", "spec", "template", "spec", "volumes")
                            .index(v)
                            .child("name");
      errs.push_back(field::invalid(
          path, field::BadValue::string(volume),
          "volume name conflicts with VolumeClaimPolicy template name: " + std::string(claim)));
    }
    mounted = mounted || mounts(member(pod_spec, "initContainers"), claim) ||
              mounts(member(pod_spec, "containers"), claim);
  }
  if (!mounted) {
    // Upstream prints the whole replicatedJobs list as the value (ours is the request's JSON,
    // elided).
    const MaybeJson list = member(in.spec, "replicatedJobs");
    errs.push_back(field::invalid(field::Path("spec").child("replicatedJobs"),
                                  list ? field::BadValue::of(*list) : field::BadValue::null(),
                                  "replicatedJob containers don't have a matching volumeMount: " +
                                      std::string(claim) + " from VolumeClaimPolicies"));
  }
}

}  // namespace

void validate_volume_claim_policies(const CreateInput& in, field::ErrorList& errs) {
  std::unordered_set<std::string_view> seen;
  const auto policies = items_of(member(in.spec, "volumeClaimPolicies"));
  for (std::size_t p = 0; p < policies.size(); ++p) {
    const auto templates = items_of(member(policies[p], "templates"));
    for (std::size_t t = 0; t < templates.size(); ++t) {
      // Upstream's path says "template", singular, although the field is "templates".
      const auto name_path = field::Path("spec")
                                 .child("volumeClaimPolicies")
                                 .index(p)
                                 .child("template")
                                 .index(t)
                                 .child("name");
      const auto name = string_or_empty(at(templates[t], {"metadata", "name"}));
      if (seen.contains(name)) {
        errs.push_back(field::invalid(name_path, field::BadValue::string(name),
                                      "names must be unique for VolumeClaimPolicies template"));
      }
      for (const auto& msg : is_dns1123_subdomain(name))
        errs.push_back(field::invalid(name_path, field::BadValue::string(name), msg));
      // The controller names each claim <template>-<jobset>.
      if (name.size() + 1 + in.name.size() > kMaxVolumeClaimLength) {
        errs.push_back(field::invalid(name_path, field::BadValue::string(name),
                                      "VolumeClaimPolicies template name is too long"));
      }
      validate_replicated_jobs_volume_claims(in, name, errs);
      seen.insert(name);
    }
  }
}

}  // namespace jobset_webhook::validation
