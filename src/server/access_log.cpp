#include "access_log.h"

namespace jobset_webhook::server {

Json access_fields(const AccessRecord& record) {
  Json fields = Json::object();
  fields["method"] = record.method;
  fields["path"] = record.path;
  fields["remote"] = record.remote;
  fields["code"] = record.code;
  fields["latencyUs"] = record.latency_us;
  if (record.review) {
    fields["uid"] = record.review->uid;
    fields["operation"] = record.review->operation;
    fields["namespace"] = record.review->ns;
    fields["name"] = record.review->name;
    fields["dryRun"] = record.review->dry_run;
    fields["allowed"] = record.review->allowed;
  }
  if (!record.error.empty()) fields["error"] = record.error;
  return fields;
}

void log_access(const runtime::Log& log, const AccessRecord& record) {
  if (log.enabled(runtime::LogLevel::kInfo)) log.info("request", access_fields(record));
}

}  // namespace jobset_webhook::server
