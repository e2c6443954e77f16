package harness

// jobset-webhook's own validation of ReplicatedJobScalers on the real API server: the harness
// registers manifests/base's validating webhooks (RegisterWebhooks), the scaler's among them, so
// a scaler written here is judged by `serve` at
// /validate-elastic-jobset-webhook-io-v1alpha1-replicatedjobscaler.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Two of the scaler's rules are the webhook's alone (the CRD's schema cannot say them): its
// names are DNS-1035 labels, and they never change. The API server names the webhook that
// refused in the Status message: "admission webhook %q denied the request: %s"
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/errors/statuserror.go,
// ToStatusErr). minReplicas > maxReplicas is refused before any webhook is called: the CRD's CEL
// rule runs in the custom resource strategy's Validate, which Store.create
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go) calls through
// rest.BeforeCreate before createValidation, the validating admission webhooks.
func TestReplicatedJobScalerWebhook(t *testing.T) { run(t, scalerWebhook) }

// The webhook's entry in manifests/base; with several serving processes the harness prefixes
// it with p<i>.
var scalerDenial = regexp.MustCompile(
	`^admission webhook "(p[0-9]+\.)?vreplicatedjobscaler\.jobset-webhook\.kb\.io" denied the request: (.*)$`)

func scalerWebhook(t *T) {
	installScalerCRD(t)
	ns := t.Namespace("scalerhook")
	collection := "/apis/elastic.jobset-webhook.io/v1alpha1/namespaces/" + ns + "/replicatedjobscalers"
	scaler := func(name, jobSet string, extra map[string]any) map[string]any {
		spec := map[string]any{"jobSetName": jobSet, "replicatedJobName": "workers"}
		for k, v := range extra {
			spec[k] = v
		}
		return map[string]any{"apiVersion": "elastic.jobset-webhook.io/v1alpha1",
			"kind": "ReplicatedJobScaler", "metadata": map[string]any{"name": name}, "spec": spec}
	}

	code, message := apiWrite(t, "POST", collection, "application/json", scaler("upper", "Demo", nil))
	wantDenied(t, "a jobSetName that is not a DNS-1035 label", code, message,
		`ReplicatedJobScaler.elastic.jobset-webhook.io "upper" is invalid: spec.jobSetName: `+
			`Invalid value: "Demo": a DNS-1035 label must consist of lower case alphanumeric `+
			`characters or '-', start with an alphabetic character, and end with an alphanumeric `+
			`character (e.g. 'my-name',  or 'abc-123', regex used for validation is `+
			`'[a-z]([-a-z0-9]*[a-z0-9])?')`)
	// validate says what the webhook says, byte for byte.
	if m := scalerDenial.FindStringSubmatch(message); m != nil {
		if says := validateSays(t, scaler("upper", "Demo", nil)); says != m[2] {
			t.Errorf("validate says %q; the webhook %q", says, m[2])
		}
	}

	code, message = apiWrite(t, "POST", collection, "application/json",
		scaler("bounds", "demo", map[string]any{"replicas": 4, "minReplicas": 5, "maxReplicas": 3}))
	if code != http.StatusUnprocessableEntity || scalerDenial.MatchString(message) {
		t.Errorf("minReplicas 5 > maxReplicas 3: %d %q; want 422 from the CRD's rule, before any webhook",
			code, message)
	}
	contains(t, "the CEL refusal", message, "minReplicas must be less than or equal to maxReplicas")
	// validate predicts the CRD's refusal in its words: every CEL rule of the spec evaluated, the
	// value omitted (apiextensions-apiserver v0.37.2, pkg/apiserver/schema/cel/validation.go).
	if says := validateSays(t, scaler("bounds", "demo",
		map[string]any{"replicas": 4, "minReplicas": 5, "maxReplicas": 3})); says != message {
		t.Errorf("validate says %q; the API server %q", says, message)
	}

	code, message = apiWrite(t, "POST", collection, "application/json",
		scaler("demo-workers", "demo", map[string]any{"replicas": 2, "minReplicas": 1, "maxReplicas": 4}))
	if code != http.StatusCreated {
		t.Fatalf("a valid scaler: %d %s; want 201", code, message)
	}
	code, message = apiWrite(t, "PATCH", collection+"/demo-workers", "application/merge-patch+json",
		map[string]any{"spec": map[string]any{"jobSetName": "other"}})
	wantDenied(t, "a changed jobSetName", code, message,
		`ReplicatedJobScaler.elastic.jobset-webhook.io "demo-workers" is invalid: spec.jobSetName: `+
			`Invalid value: "other": field is immutable`)

	// kubectl prints the same refusal from its causes (without the webhook's name), and a scale
	// through /scale, which the webhook's rule does not cover, still passes.
	r := t.Try("", nil, "patch", "-n", ns, "rjs", "demo-workers", "--type", "merge", "-p",
		`{"spec":{"replicatedJobName":"leader"}}`)
	if r.OK {
		t.Errorf("replicatedJobName change allowed: %s", r.Out)
	}
	contains(t, "kubectl's error", r.Err, `The ReplicatedJobScaler "demo-workers" is invalid: `+
		`spec.replicatedJobName: Invalid value: "leader": field is immutable`)
	t.Kubectl("scale", "-n", ns, "rjs/demo-workers", "--replicas", "3")
	spec := at(t.Get(ns, "rjs", "demo-workers"), "spec").(map[string]any)
	if spec["replicas"] != float64(3) || spec["jobSetName"] != "demo" || spec["replicatedJobName"] != "workers" {
		t.Errorf("scaler spec after the refusals and a scale to 3: %v", spec)
	}
}

// validateSays runs `validate --format json` on one scaler and returns its message: what a CI
// gate predicts the API server answers when it is written.
func validateSays(t *T, scaler map[string]any) string {
	t.Helper()
	manifest, _ := json.Marshal(scaler) // JSON is YAML
	code, out := validateWith(t, string(manifest), "--format", "json")
	var report struct {
		Scalers []struct{ Message string } `json:"scalers"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || len(report.Scalers) != 1 || code != 1 {
		t.Fatalf("validate --format json: exit %d, %v: %s", code, err, out)
	}
	return report.Scalers[0].Message
}

// installScalerCRD applies the component's CRD once any copy a previous case deleted is gone,
// and deletes it when the case ends.
func installScalerCRD(t *T) {
	t.Helper()
	t.c.Kubectl("wait", "--for=delete", "--timeout=60s", "crd/"+scalerCRD)
	crd := filepath.Join(t.c.Root, "manifests", "components", "scale-down-controller",
		"replicated-job-scaler-crd.yaml")
	t.Kubectl("apply", "-f", crd)
	t.Cleanup(func() { t.c.Kubectl("delete", "crd", scalerCRD, "--wait=false") })
	t.Kubectl("wait", "--for", "condition=Established", "--timeout", "60s", "crd/"+scalerCRD)
}

// apiWrite sends obj to the API server as its administrator and returns the status code and,
// for a refusal, the Status message, which kubectl does not print whole.
func apiWrite(t *T, method, path, contentType string, obj any) (int, string) {
	t.Helper()
	body, _ := json.Marshal(obj)
	req, err := http.NewRequest(method, t.c.APIServer+path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Content-Type", contentType)
	var res *http.Response
	// The webhook's configuration may still be reaching the API server's informer.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		req.Body = io.NopCloser(bytes.NewReader(body))
		if res, err = t.c.adminClient().Do(req); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	var status struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if json.Unmarshal(out, &status) == nil && status.Kind == "Status" {
		return res.StatusCode, status.Message
	}
	return res.StatusCode, string(out)
}

func wantDenied(t *T, what string, code int, message, want string) {
	t.Helper()
	m := scalerDenial.FindStringSubmatch(message)
	if code != http.StatusUnprocessableEntity || m == nil || m[2] != want {
		t.Errorf("%s: %d %q;\nwant 422 from jobset-webhook's scaler webhook: %q", what, code, message, want)
	}
}
