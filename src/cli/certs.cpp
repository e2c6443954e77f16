#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "certs_secret.h"
#include "jobset_webhook/base64.h"
#include "jobset_webhook/cli/commands.h"
#include "jobset_webhook/kube/client.h"
#include "jobset_webhook/kube/config.h"
#include "jobset_webhook/server/endpoints.h"
#include "x509.h"

namespace jobset_webhook::cli {
namespace {

namespace fs = std::filesystem;

struct OutputFile {
  std::string_view name;
  const std::string* content;
  mode_t mode;
};

// A bad flag or a file in the way.
int fail(const std::string& message) {
  std::cerr << "jobset-webhook certs: " << message << "\n";
  return kExitUnusableInput;
}

// A step that failed: its code says the exit code.
int fail(const Failure& failure) {
  std::cerr << "jobset-webhook certs: " << failure.message << "\n";
  return exit_code(failure);
}

// Writes a temporary file beside the target with its final mode, then moves it into place, so
// the target never exists half-written or briefly readable by others. Without force the move is
// a link(), which fails rather than replace a file that appeared since the check.
Result<bool> write_file(const fs::path& target, const std::string& content, mode_t mode,
                        bool force) {
  // Built piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
  // `"." + std::string`, which -Werror turns into a failed release build.
  std::string temp_name = ".";
  temp_name += target.filename().string();
  temp_name += ".tmp.";
  temp_name += std::to_string(::getpid());
  const fs::path temp = target.parent_path() / temp_name;
  // Takes errno first: the clean-up below may change it.
  const auto error = [&](const std::string& what, int err = errno) {
    ::unlink(temp.c_str());
    return failed_precondition(what + ": " + std::strerror(err));
  };
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return failed_precondition(temp.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      return error(temp.string(), err);
    }
    done += static_cast<std::size_t>(n);
  }
  // fchmod, not the open() mode: the umask must not make a certificate unreadable.
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return error(temp.string(), err);
  }
  if (::close(fd) != 0) return error(temp.string());
  if (force) {
    if (::rename(temp.c_str(), target.c_str()) != 0) return error(target.string());
  } else if (::link(temp.c_str(), target.c_str()) == 0) {
    ::unlink(temp.c_str());
  } else if (errno == EEXIST) {
    return error(target.string());
  } else if (::rename(temp.c_str(), target.c_str()) != 0) {  // a filesystem without hard links
    return error(target.string());
  }
  return true;
}

// The certificates into a Secret (made only when absent), and its CA into the webhook
// configurations named by inject_ca_into.
int certs_in_secret(const CertsOptions& options, const ServingCertificates& fresh) {
  const auto config = options.kubeconfig.empty()
                          ? kube::in_cluster_config()
                          : kube::load_kubeconfig(options.kubeconfig, options.context);
  if (!config.ok()) return fail(config.failure());
  kube::Client api(config.value());
  const auto secret = ensure_serving_secret(api, options.ns, options.secret, fresh);
  if (!secret.ok()) return fail(secret.failure());
  std::cerr << "jobset-webhook certs: " << (secret.value().created ? "created" : "kept")
            << " Secret " << options.ns << "/" << options.secret
            << (secret.value().created ? " for " + options.service + "." + options.ns + ".svc"
                                       : " as it is")
            << "\n";
  if (!options.inject_ca_into.empty()) {
    const auto changed = inject_ca_bundle(api, options.inject_ca_into, secret.value().ca_pem);
    if (!changed.ok()) return fail(changed.failure());
    std::cerr << "jobset-webhook certs: caBundle set in " << changed.value()
              << " webhooks of ValidatingWebhookConfiguration and MutatingWebhookConfiguration "
              << options.inject_ca_into << "\n";
  }
  std::cout << base64_encode(secret.value().ca_pem) << "\n";
  return kExitOk;
}

}  // namespace

int certs(const CertsOptions& options) {
  ServingCertificateRequest request{
      options.service, options.ns, options.extra_sans, options.days,
      options.key_type == "rsa-2048" ? KeyType::kRsa2048 : KeyType::kEcdsaP256};
  if (options.key_type != "rsa-2048" && options.key_type != "ecdsa-p256") {
    return fail("--key-type must be ecdsa-p256 or rsa-2048, got \"" + options.key_type + "\"");
  }
  if (options.out.empty() == options.secret.empty()) {
    return fail("name one of --out (a directory) or --secret (a Secret, through the API)");
  }
  if (!options.inject_ca_into.empty() && options.secret.empty()) {
    return fail("--inject-ca-into needs --secret: the caBundle is the Secret's ca.crt");
  }
  if (!options.secret.empty()) {
    // Made first, as for files: bad arguments fail before any API call.
    const auto issued = issue_serving_certificates(request);
    if (!issued.ok()) return fail(issued.failure());
    return certs_in_secret(options, issued.value());
  }
  const fs::path dir(options.out);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return fail(options.out + ": not a directory");

  std::vector<std::string> existing;
  for (const auto name : {server::kCaFileName, server::kCertFileName, server::kKeyFileName}) {
    if (fs::symlink_status(dir / name, ec).type() != fs::file_type::not_found)
      existing.push_back((dir / name).string());
  }
  if (!existing.empty() && !options.force) {
    std::string list;
    for (const auto& path : existing) list += (list.empty() ? "" : ", ") + path;
    return fail(list + (existing.size() == 1 ? " already exists" : " already exist") +
                "; use --force to replace (the caBundle changes with them)");
  }

  // Certificates are made before anything touches the disk, so bad arguments write nothing.
  const auto issued = issue_serving_certificates(request);
  if (!issued.ok()) return fail(issued.failure());

  if (!fs::exists(dir, ec)) {
    // The directory will hold a private key: only its owner may list it.
    if (!fs::create_directories(dir, ec)) return fail(options.out + ": " + ec.message());
    fs::permissions(dir, fs::perms::owner_all, ec);
  }
  const auto& c = issued.value();
  const OutputFile files[] = {{server::kKeyFileName, &c.key_pem, 0600},
                              {server::kCertFileName, &c.cert_pem, 0644},
                              {server::kCaFileName, &c.ca_pem, 0644}};
  for (const auto& f : files) {
    const auto written = write_file(dir / f.name, *f.content, f.mode, options.force);
    if (!written.ok()) return fail(written.failure());
  }

  std::cerr << "jobset-webhook certs: wrote " << (dir / server::kCaFileName).string() << ", "
            << (dir / server::kCertFileName).string() << ", "
            << (dir / server::kKeyFileName).string() << " for " << options.service << "."
            << options.ns << ".svc; caBundle on stdout\n";
  std::cout << base64_encode(c.ca_pem) << "\n";
  return kExitOk;
}

Command add_certs_command(CLI::App& app) {
  auto options = std::make_shared<CertsOptions>();
  CertsOptions& o = *options;
  auto* cmd =
      app.add_subcommand("certs", "Make a CA and a serving certificate for the webhook Service");
  cmd->add_option("--service", o.service, "The webhook Service's name")->required();
  cmd->add_option("--namespace", o.ns, "The Service's namespace")->required();
  auto* out = cmd->add_option("--out", o.out, "Directory for ca.crt, tls.crt and tls.key");
  auto* secret = cmd->add_option(
      "--secret", o.secret,
      "Instead of --out: a kubernetes.io/tls Secret of --namespace, created through the API "
      "unless it exists");
  out->excludes(secret);
  cmd->add_option("--inject-ca-into", o.inject_ca_into,
                  "With --secret: set the Secret's CA as caBundle of the Service webhooks of the "
                  "Validating- and MutatingWebhookConfiguration of this name");
  cmd->add_option("--kubeconfig", o.kubeconfig,
                  "With --secret: kubeconfig file; without it, the in-cluster configuration");
  cmd->add_option("--context", o.context, "kubeconfig context (default: its current-context)");
  cmd->add_option("--days", o.days, "Validity of both certificates (1 to 3650)")
      ->capture_default_str();
  cmd->add_option("--key-type", o.key_type, "ecdsa-p256 or rsa-2048")->capture_default_str();
  cmd->add_option("--extra-san", o.extra_sans,
                  "More DNS names or IP addresses (repeat, or comma-separate)")
      ->delimiter(',');
  cmd->add_flag("--force", o.force, "Replace existing files");
  return {cmd, [options] { return certs(*options); }};
}

}  // namespace jobset_webhook::cli
