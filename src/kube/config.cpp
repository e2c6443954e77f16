#include "jobset_webhook/kube/config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "jobset_webhook/base64.h"

namespace jobset_webhook::kube {
namespace {

Failure config_error(const std::string& where, const std::string& problem) {
  return invalid_argument(where + ": " + problem);
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_argument("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string resolve(const std::string& folder, const std::string& path) {
  return !path.empty() && path[0] == '/' ? path : folder + "/" + path;
}

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node v = node[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

// The entry of a named list (clusters, users, contexts) whose name is `name`, its inner mapping
// under `inner`.
YAML::Node named(const YAML::Node& root, const char* list, const char* inner,
                 const std::string& name) {
  const YAML::Node items = root[list];
  if (!items || !items.IsSequence()) return YAML::Node();
  for (const auto& item : items) {
    if (scalar(item, "name") == name) return item[inner];
  }
  return YAML::Node();
}

// PEM text from "<key>-data" (base64) or "<key>" (a file).
Result<std::string> pem(const YAML::Node& node, const std::string& key, const std::string& folder,
                        const std::string& where) {
  const std::string data = scalar(node, (key + "-data").c_str());
  if (!data.empty()) {
    auto decoded = base64_decode(data);
    if (!decoded.ok()) return config_error(where, key + "-data: " + decoded.failure().message);
    return decoded;
  }
  const std::string file = scalar(node, key.c_str());
  if (file.empty()) return std::string();
  auto text = read_file(resolve(folder, file));
  if (!text.ok()) return config_error(where, key + ": " + text.failure().message);
  return text;
}

Result<Config> parse_kubeconfig(const std::string& path, const std::string& text,
                                const std::string& context_name) {
  const std::string where = "kubeconfig " + path;
  const std::string folder = folder_of(path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return config_error(where, e.what());
  }
  if (!root.IsMap()) return config_error(where, "not a mapping");
  const std::string name = context_name.empty() ? scalar(root, "current-context") : context_name;
  if (name.empty()) return config_error(where, "no current-context and no --context");
  const YAML::Node context = named(root, "contexts", "context", name);
  if (!context || !context.IsMap())
    return config_error(where, "context \"" + name + "\" not found");
  const std::string cluster_name = scalar(context, "cluster");
  const YAML::Node cluster = named(root, "clusters", "cluster", cluster_name);
  if (!cluster || !cluster.IsMap())
    return config_error(where, "cluster \"" + cluster_name + "\" not found");
  const std::string user_name = scalar(context, "user");
  YAML::Node user = named(root, "users", "user", user_name);
  if (!user_name.empty() && (!user || !user.IsMap()))
    return config_error(where, "user \"" + user_name + "\" not found");

  Config config;
  if (const std::string ns = scalar(context, "namespace"); !ns.empty()) config.ns = ns;
  auto with = with_server(config, scalar(cluster, "server"));
  if (!with.ok()) return config_error(where, with.failure().message);
  config = std::move(with).value();
  config.insecure_skip_tls_verify = scalar(cluster, "insecure-skip-tls-verify") == "true";
  auto ca = pem(cluster, "certificate-authority", folder, where);
  if (!ca.ok()) return ca.failure();
  config.ca_pem = std::move(ca).value();
  if (scalar(cluster, "certificate-authority-data").empty()) {
    if (const std::string file = scalar(cluster, "certificate-authority"); !file.empty())
      config.ca_file = resolve(folder, file);
  }
  if (user && user.IsMap()) {
    auto cert = pem(user, "client-certificate", folder, where);
    if (!cert.ok()) return cert.failure();
    auto key = pem(user, "client-key", folder, where);
    if (!key.ok()) return key.failure();
    config.client_cert_pem = std::move(cert).value();
    config.client_key_pem = std::move(key).value();
    config.token = scalar(user, "token");
    if (const std::string file = scalar(user, "tokenFile"); !file.empty())
      config.token_file = resolve(folder, file);
  }
  if (config.client_cert_pem.empty() != config.client_key_pem.empty())
    return config_error(where, "client-certificate and client-key go together");
  return config;
}

}  // namespace

Result<Config> with_server(Config config, const std::string& server) {
  const std::string scheme = "https://";
  if (server.rfind(scheme, 0) != 0)
    return invalid_argument("server \"" + server + "\": only https:// servers are supported");
  std::string rest = server.substr(scheme.size());
  if (const auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  std::string port;
  if (!rest.empty() && rest[0] == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) return invalid_argument("server \"" + server + "\": bad host");
    config.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (const auto colon = rest.rfind(':'); colon != std::string::npos) {
    config.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  } else {
    config.host = rest;
  }
  if (config.host.empty()) return invalid_argument("server \"" + server + "\": no host");
  config.port = 443;
  if (!port.empty()) {
    int p = 0;
    for (const char c : port) {
      if (c < '0' || c > '9' || p > 65535)
        return invalid_argument("server \"" + server + "\": bad port");
      p = p * 10 + (c - '0');
    }
    if (p < 1 || p > 65535) return invalid_argument("server \"" + server + "\": bad port");
    config.port = p;
  }
  return config;
}

Result<Config> load_kubeconfig(const std::string& path, const std::string& context) {
  auto text = read_file(path);
  if (!text.ok()) return config_error("kubeconfig " + path, text.failure().message);
  return parse_kubeconfig(path, text.value(), context);
}

Result<Config> in_cluster_config(const std::string& dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0')
    return invalid_argument(
        "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset");
  const std::string h(host);
  auto config = with_server(
      Config{}, "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port);
  if (!config.ok()) return invalid_argument("in-cluster: " + config.failure().message);
  auto ca = read_file(dir + "/ca.crt");
  if (!ca.ok()) return invalid_argument("in-cluster: " + ca.failure().message);
  config.value().ca_pem = std::move(ca).value();
  config.value().ca_file = dir + "/ca.crt";
  config.value().token_file = dir + "/token";
  auto token = read_file(config.value().token_file);
  if (!token.ok()) return invalid_argument("in-cluster: " + token.failure().message);
  if (auto ns = read_file(dir + "/namespace"); ns.ok() && !ns.value().empty())
    config.value().ns = ns.value();
  return config;
}

}  // namespace jobset_webhook::kube
