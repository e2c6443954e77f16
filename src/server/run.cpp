#include "jobset_webhook/server/run.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include "jobset_webhook/server/server.h"

namespace jobset_webhook::server {

int run(const ServerOptions& options, const Log& log) {
  sigset_t termination;
  sigemptyset(&termination);
  sigaddset(&termination, SIGTERM);
  sigaddset(&termination, SIGINT);
  pthread_sigmask(SIG_BLOCK, &termination, nullptr);

  auto server = AdmissionServer::start(options, log);
  if (!server.ok()) {
    log.error("cannot serve", {{"error", server.failure().message}});
    return server.failure().code == 400 ? kExitUnusableInput : kExitFailed;
  }
  int signal = 0;
  while (sigwait(&termination, &signal) != 0) {
  }
  log.info("received signal", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
  // From here a second signal takes its default action on this thread: the process ends at once.
  pthread_sigmask(SIG_UNBLOCK, &termination, nullptr);
  if (!server.value()->shutdown(options.shutdown_delay, options.shutdown_grace)) {
    // Threads still serve stuck connections; destroying the server would wait for them.
    std::fflush(nullptr);
    std::_Exit(kExitFailed);
  }
  return kExitOk;
}

}  // namespace jobset_webhook::server
