#pragma once

// Flags that several subcommands share, defined once.

#include <CLI/CLI.hpp>

#include <string>

namespace jobset_webhook::cli {

inline constexpr const char* kPathHelp =
    "a file, a directory (its *.yaml, *.yml, *.json, recursively) or - for stdin";

// --format of check and validate.
inline void add_format_flag(CLI::App* app, std::string& format) {
  app->add_option("--format", format, "Output format")
      ->check(CLI::IsMember({"text", "json", "junit", "sarif", "github"}))
      ->capture_default_str();
}

// --field-validation of check, validate and default.
inline void add_field_validation_flag(CLI::App* app, std::string& field_validation) {
  app->add_option("--field-validation", field_validation,
                  "What the API server does with a field the JobSet CRD does not declare, as "
                  "kubectl's --field-validation: Strict refuses the JobSet, Warn prunes it with a "
                  "warning, Ignore prunes it")
      ->check(CLI::IsMember({"Strict", "Warn", "Ignore"}))
      ->capture_default_str();
}

// --kustomize of check, validate and default (cli/kustomize.h).
inline void add_kustomize_flag(CLI::App* app, std::string& kustomize) {
  app->add_option("--kustomize", kustomize,
                  "The program that renders a directory holding a kustomization: kustomize (run "
                  "as BIN build DIR) or kubectl (BIN kustomize DIR); default: kustomize, else "
                  "kubectl, from PATH");
}

// --log-level and --log-format of the daemons (runtime/log.h).
inline void add_log_flags(CLI::App* app, std::string& level, std::string& format,
                          const char* info_help = "info") {
  app->add_option("--log-level", level, std::string("debug, ") + info_help + ", warn or error")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();
  app->add_option("--log-format", format, "json (one object per line) or text (for people)")
      ->check(CLI::IsMember({"json", "text"}))
      ->capture_default_str();
}

}  // namespace jobset_webhook::cli
