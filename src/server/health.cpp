#include "health.h"

#include "jobset_webhook/server/endpoints.h"

namespace jobset_webhook::server {

HealthServer::HealthServer() {
  http_.http().Get(std::string(kHealthzPath), [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  http_.http().Get(std::string(kReadyzPath),
                   [this](const httplib::Request&, httplib::Response& res) {
                     if (ready_) {
                       res.set_content("ok\n", "text/plain");
                     } else {
                       res.status = 503;
                       res.set_content("not ready\n", "text/plain");
                     }
                   });
}

}  // namespace jobset_webhook::server
