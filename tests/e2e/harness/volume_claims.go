package main

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
func (s *Suite) reapplyVolumeClaimPolicies(t *T) {
	ns := t.Namespace("vcp")
	manifest := func(replicas int) string {
		mounted := strings.Replace(jobsetYAML("vcp", replicas, "busybox:1.36", false),
			"              command: [\"sleep\", \"600\"]\n",
			"              command: [\"sleep\", \"600\"]\n"+
				"              volumeMounts: [{name: cache, mountPath: /cache}]\n", 1)
		return strings.Replace(mounted, "  replicatedJobs:\n",
			"  volumeClaimPolicies:\n"+
				"  - templates:\n"+
				"    - metadata: {name: cache}\n"+
				"      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n"+
				"  replicatedJobs:\n", 1)
	}
	if r := t.Try(manifest(1), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	// The case is about a stored template that differs from the manifest: make sure it does.
	stored := claimTemplate(t, ns)
	t.Note("stored claim template: %s", stored)
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
	code, out := s.checkPredicts(t, manifest(1), manifest(2))
	t.Note("check: exit %d: %s", code, out)
	if code != 0 {
		t.Errorf("check exits %d; the cluster allows", code)
	}
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
