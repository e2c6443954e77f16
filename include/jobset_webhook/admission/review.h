#pragma once

// AdmissionReview (admission.k8s.io/v1 and v1beta1) in, AdmissionReview out: the bytes that
// `serve` sends and `review` prints, from one function.
//
// - A body that is not JSON at all is a kInvalidArgument Failure: the front end refuses it (HTTP
//   400, exit 2).
// - JSON that holds a key twice in one object is refused with status.code 400: Go's decoder and
//   ours would read different values (see docs/security.md). The objects' metadata.managedFields,
//   which no decision reads, is not checked.
// - JSON that is not a usable AdmissionReview (no request or uid, an unknown operation, a kind
//   that is not the hook's (admitted_kind), an UPDATE without oldObject, an object or spec that
//   is not an object) gets a response with allowed: false and status.code 400 saying what is
//   wrong: a JobSet sent to the scaler's hook, or a scaler to a JobSet's, is never judged by the
//   other's rules.
// - The validating hook judges CREATE (validation/create.h) and UPDATE (validation/update.h). The
//   mutating hook answers CREATE with the defaults (defaulting/defaults.h) as a base64 `patch` with
//   `patchType: JSONPatch`, or no patch when nothing needs defaulting, and allows UPDATE unchanged.
//   The scaler's validating hook judges a ReplicatedJobScaler's CREATE and UPDATE
//   (validation/replicated_job_scaler.h).
// - DELETE and CONNECT are allowed. dryRun changes nothing.
// - A denial is the API server's own for the kind: status.code 422, reason Invalid, message
//   `JobSet.jobset.x-k8s.io "<name>" is invalid: <errors>` (upstream's), or
//   `ReplicatedJobScaler.elastic.jobset-webhook.io "<name>" is invalid: <errors>`, details.causes
//   one per error.
// The response is in the request's apiVersion and echoes its uid. Never throws.

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/decide.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::admission {

inline constexpr std::string_view kGroup = "jobset.x-k8s.io";
inline constexpr std::string_view kVersion = "v1alpha2";
inline constexpr std::string_view kKind = "JobSet";

// The kind a hook admits, and that its denials name.
struct AdmittedKind {
  std::string_view group;
  std::string_view version;
  std::string_view kind;
};
inline constexpr AdmittedKind kJobSetKind{kGroup, kVersion, kKind};
inline constexpr AdmittedKind kScalerKind{"elastic.jobset-webhook.io", "v1alpha1",
                                          "ReplicatedJobScaler"};
constexpr AdmittedKind admitted_kind(Hook hook) {
  return hook == Hook::kValidatingScaler ? kScalerKind : kJobSetKind;
}

[[nodiscard]] Result<std::string> handle_review(std::string_view body, const Policy& policy,
                                                Hook hook);

// What an access log says about one review, read from the same parse that produced the answer
// (the body is parsed once). Fields the request did not carry are empty.
struct ReviewSummary {
  std::string uid;
  std::string operation;  // as sent: "CREATE", "UPDATE", ...
  std::string ns;         // request.namespace
  std::string name;       // request.name, else the object's metadata.name
  bool dry_run = false;
  bool allowed = false;
  int code = 0;  // response.status.code: 200, 400 or 422
  // A denial's field errors, one printed path each ("spec.replicatedJobs[0].replicas", "<nil>"
  // for an error without a field), duplicates dropped, in the order of the message.
  std::vector<std::string> denied_fields;
};

struct ReviewAnswer {
  std::string body;  // exactly what handle_review returns
  ReviewSummary summary;
};

// handle_review plus the summary: same body, same Failure. Never throws.
[[nodiscard]] Result<ReviewAnswer> answer_review(std::string_view body, const Policy& policy,
                                                 Hook hook);

// How many readable bytes past its end let a body be parsed where it is: simdjson reads up to
// that far ahead. Any content; the spare capacity of the string that holds the body will do.
inline constexpr std::size_t kInPlacePadding = simdjson::SIMDJSON_PADDING;

// A body larger than this is rare (a typical review is a few KiB, a large one 60 KB) and leaves
// freed buffers of several times its size behind: the parser that read it is kept for the next
// review only where keep_large_parsers() says so, the server hands freed memory back to the system
// after answering it (HttpsServer), and `serve` maps blocks of this size and more on their own
// (server::run). Kept, idle parsers of smaller bodies hold at most about ten times this each, twice
// as many as there are cores: a few MiB, not the tens of MiB that keeping every 1 MiB body's
// parser held after a burst.
inline constexpr std::size_t kLargeBodyBytes = 256 << 10;

// Lets the reviews of this process keep up to `count` parsers of bodies larger than
// kLargeBodyBytes, of at most `max_body_bytes` each, between reviews (none by default). Each holds
// the pages it wrote, several times the largest body it read: `serve` charges them to its memory
// budget (memory_sizing.h).
void keep_large_parsers(std::size_t count, std::size_t max_body_bytes);

// answer_review for a body followed by kInPlacePadding readable bytes, parsed in place: the copy
// answer_review makes first is a 60 KB memcpy for a typical review, and it evicts the body the
// server has just read from the cache.
[[nodiscard]] Result<ReviewAnswer> answer_padded_review(std::string_view body, const Policy& policy,
                                                        Hook hook);

// `JobSet.jobset.x-k8s.io "<name>" is invalid: <errors>` (`<Kind>.<group>` of the kind given).
std::string rejection_message(std::string_view name, const field::ErrorList& errors,
                              const AdmittedKind& kind = kJobSetKind);

// The metav1.Status of a denial (422 Invalid with details.causes).
Json rejection_status(std::string_view name, const field::ErrorList& errors,
                      const AdmittedKind& kind = kJobSetKind);

}  // namespace jobset_webhook::admission
