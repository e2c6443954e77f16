#include <signal.h>

#include <atomic>
#include <thread>

#include "jobset_webhook/cli/commands.h"
#include "jobset_webhook/controller/scale_down_controller.h"

namespace jobset_webhook::cli {

int scale_down_controller(const controller::ControllerOptions& options) {
  // SIGTERM and SIGINT are blocked in every thread and taken by one that only waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::atomic<bool> stop{false};
  std::thread waiter([&signals, &stop] {
    int sig = 0;
    sigwait(&signals, &sig);
    stop = true;
  });
  waiter.detach();
  return controller::run_scale_down_controller(options, stop);
}

}  // namespace jobset_webhook::cli
