#pragma once

// Which JobSet of the old side each JobSet of the new side is compared with, when both sides are
// one repository at two commits (docs/ci-gating.md, "Pairing"). A repository may hold the same
// JobSet (kind, namespace, name) once per cluster or environment, in several files, so a JobSet is
// paired by its file's place first:
// 1. the JobSet of the same identity in the file at the same path below its root (relative), if
//    there is exactly one;
// 2. otherwise, when the file moved: the old JobSet of that identity whose own path no longer
//    holds it, when it is the only such JobSet on the old side and this is the only such JobSet on
//    the new side;
// 3. otherwise it is created; when several old JobSets could have been its old self, the pair's
//    note says so and names them.
// An old JobSet that nothing pairs with is deleted, file by file. JobSets with only generateName
// are always created (and ignored on the old side, by the caller). ReplicatedJobScalers are paired
// the same way, among themselves (the kind is part of the identity).

#include <string>
#include <vector>

#include "manifests.h"

namespace jobset_webhook::cli {

struct Pairing {
  const JobSetManifest* new_js = nullptr;  // null for a deletion
  const JobSetManifest* old_js = nullptr;  // null for a creation
  // Set when the pairing is not by the file's path: "compared with <old place> (the file moved)",
  // or "treated as created: ... is in several files of --old: <places>".
  std::string note;
};

// One pairing per named or generateName JobSet of new_side, in its order, then one per unpaired
// named JobSet of old_side (a deletion), in its order.
std::vector<Pairing> pair_jobsets(const Manifests& old_side, const Manifests& new_side);

}  // namespace jobset_webhook::cli
