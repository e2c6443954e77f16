#include "jobset_webhook/server/run.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include "jobset_webhook/admission/review.h"
#include "server.h"

namespace jobset_webhook::server {

namespace {

// glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB) and its
// trim threshold to twice that, so after a burst of large bodies the big buffers come from the
// thread arenas, whose free top (up to 64 MiB each) malloc_trim does not give back: `serve` kept
// some 47 MiB after the rounds of tests/server/memory_test. Fixed thresholds turn that off: a
// block of a large body's size is mapped and unmapped on its own, and a free top over twice that
// is returned at once.
void bound_allocator_retention() {
  ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(admission::kLargeBodyBytes));
  ::mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * admission::kLargeBodyBytes));
}

}  // namespace

int run(const ServerOptions& options, const Log& log) {
  bound_allocator_retention();
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
