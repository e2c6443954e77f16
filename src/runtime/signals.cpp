#include "jobset_webhook/runtime/signals.h"

#include <pthread.h>
#include <signal.h>

namespace jobset_webhook::runtime {
namespace {

sigset_t termination() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

TerminationSignals::TerminationSignals() {
  const sigset_t set = termination();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::string TerminationSignals::wait() {
  const sigset_t set = termination();
  int signal = 0;
  while (sigwait(&set, &signal) != 0) {
  }
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  return signal == SIGTERM ? "SIGTERM" : "SIGINT";
}

}  // namespace jobset_webhook::runtime
