package harness

import (
	"encoding/json"
	"strings"
)

// reapplyVolumeClaimPolicies: upstream's mjobset.kb.io (active in this namespace, as docs/install.md
// keeps it on CREATE) answers with a patch to the JobSet it decoded into its Go type and encoded
// again, so the stored claim template gains what Go's encoder writes for an empty struct,
// `status: {}`. kubectl apply of the same manifest then sends a JSON merge patch that replaces
// volumeClaimPolicies whole with the manifest's list, and the CRD's CEL rule `self == oldSelf`
// compares JSON: it refused ("spec.volumeClaimPolicies: Invalid value: Value is immutable") until
// jobset-webhook's UPDATE mutation gave back the stored list where the sent one decodes to the
// same Go value (restored_defaults_patch). check allows the pair too.
func reapplyVolumeClaimPolicies(t *T) {
	ns := t.Namespace("vcp")
	manifest := func(replicas int) string {
		mounted := workers(replicas).container("volumeMounts",
			[]any{map[string]any{"name": "cache", "mountPath": "/cache"}})
		return jobSet("vcp").suspend(false).replicatedJob(mounted).
			set("spec.volumeClaimPolicies", volumeClaimPolicies(claimSpec())).yaml()
	}
	if r := t.Try(manifest(1), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	// The case is about a stored template that differs from the manifest: make sure it does.
	stored := claimTemplate(t, ns)
	t.Logf("stored claim template: %s", stored)
	if !strings.Contains(stored, `"status":{}`) {
		t.Fatalf("the stored claim template has no status: {}: upstream's defaulting did not re-encode it")
	}
	if r := t.Try(manifest(1), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Errorf("kubectl apply of the unchanged manifest refused: %s", r.Err)
	}
	r := t.Try(manifest(2), nil, "apply", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("kubectl apply of replicas 2 refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled up from 1 to 2`)
	if again := claimTemplate(t, ns); again != stored {
		t.Errorf("claim template after the applies: %s, want it as stored: %s", again, stored)
	}
	code, out := checkPredicts(t, manifest(1), manifest(2))
	t.Logf("check: exit %d: %s", code, out)
	if code != 0 {
		t.Errorf("check exits %d; the cluster allows", code)
	}
}

// claimSpec is the spec of the claim template "cache": ReadWriteOnce, 1Gi.
func claimSpec() map[string]any {
	return map[string]any{"accessModes": []any{"ReadWriteOnce"},
		"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}
}

// volumeClaimPolicies is spec.volumeClaimPolicies with one policy of one claim template "cache".
func volumeClaimPolicies(spec map[string]any) []any {
	return []any{map[string]any{"templates": []any{
		map[string]any{"metadata": map[string]any{"name": "cache"}, "spec": spec}}}}
}

// claimTemplate: the stored JobSet vcp's first claim template, as compact JSON (keys sorted).
func claimTemplate(t *T, ns string) string {
	spec, _ := t.Get(ns, "jobset", "vcp")["spec"].(map[string]any)
	policies, _ := spec["volumeClaimPolicies"].([]any)
	if len(policies) == 0 {
		t.Fatalf("the stored JobSet has no volumeClaimPolicies")
	}
	policy, _ := policies[0].(map[string]any)
	templates, _ := policy["templates"].([]any)
	if len(templates) == 0 {
		t.Fatalf("the stored volumeClaimPolicy has no templates")
	}
	out, _ := json.Marshal(templates[0])
	return string(out)
}
