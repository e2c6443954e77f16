#include "metrics_server.h"

#include "jobset_webhook/metrics/exposition.h"
#include "jobset_webhook/server/endpoints.h"

namespace jobset_webhook::server {

MetricsServer::MetricsServer(const ServerMetrics& metrics) {
  http_.http().Get(std::string(kMetricsPath),
                   [&metrics](const httplib::Request&, httplib::Response& res) {
                     res.set_content(metrics.scrape(), std::string(metrics::kContentType).c_str());
                   });
}

}  // namespace jobset_webhook::server
