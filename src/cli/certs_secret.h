#pragma once

// `certs --secret` and `certs --inject-ca-into`: the serving certificate kept in a Secret through
// the Kubernetes API instead of in files, and its CA put into the webhook configurations'
// caBundle. For the chart's hook Jobs (certificates.mode hook): the image has no shell and no
// kubectl, so the binary does what ingress-nginx's admission-webhook Jobs do with
// kube-webhook-certgen (`create`, then `patch`).

#include <string>

#include "jobset_webhook/json.h"
#include "jobset_webhook/kube/api.h"
#include "jobset_webhook/result.h"
#include "x509.h"

namespace jobset_webhook::cli {

// The Secret ns/name that holds `certificates`: type kubernetes.io/tls, keys ca.crt, tls.crt and
// tls.key (the layout of `serve --cert-dir`), labelled as the kustomize base labels its objects.
Json serving_secret(const std::string& ns, const std::string& name,
                    const ServingCertificates& certificates);

struct EnsuredSecret {
  std::string ca_pem;  // ca.crt of the Secret as it now is
  bool created = false;
};

// Secret ns/name: kept as it is when it exists (a second install or an upgrade never changes the
// certificate the pods serve), else created holding `fresh`. A create answered 409 (another run
// made it first) reads that one. Fails kFailedPrecondition when the Secret lacks ca.crt, tls.crt
// or tls.key, naming them; other failures are the API's (api.h).
Result<EnsuredSecret> ensure_serving_secret(kube::Api& api, const std::string& ns,
                                            const std::string& name,
                                            const ServingCertificates& fresh);

// Sets clientConfig.caBundle to base64(ca_pem) in every webhook that calls a Service in the
// ValidatingWebhookConfiguration and the MutatingWebhookConfiguration named `name` (a webhook
// with a url keeps the caBundle it was given). Each configuration is read, changed and written
// back with its resourceVersion, read again on 409, at most 5 times. Returns how many webhooks
// changed (0 when each already had it). Fails kNotFound when either configuration is absent.
Result<int> inject_ca_bundle(kube::Api& api, const std::string& name, const std::string& ca_pem);

}  // namespace jobset_webhook::cli
