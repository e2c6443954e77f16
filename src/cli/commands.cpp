#include "jobset_webhook/cli/commands.h"

namespace jobset_webhook::cli {

std::vector<Command> add_commands(CLI::App& app) {
  return {add_review_command(app),
          add_certs_command(app),
          add_check_command(app),
          add_validate_command(app),
          add_default_command(app),
          add_serve_command(app),
          add_scale_down_controller_command(app)};
}

}  // namespace jobset_webhook::cli
