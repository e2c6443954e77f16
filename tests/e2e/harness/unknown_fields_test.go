package harness

import "strings"

// unknownStatusAndPVC: the API server's decoder prunes status and the PVC templates of
// volumeClaimPolicies as the CRD declares them, so with strict field validation (kubectl's
// default) a create holding an unknown field in either is refused before any webhook, in
// transformDecodeError's words (apiserver pkg/endpoints/handlers/rest.go). check, on the same
// manifest as a new JobSet, refuses each field at its line in the same words.
func unknownStatusAndPVC(t *T) {
	ns := t.Namespace("unknown")
	claim := claimSpec()
	claim["foo"] = 1
	manifest := plain("unknown", 1, "busybox:1.36").
		set("spec.volumeClaimPolicies", volumeClaimPolicies(claim)).
		set("status", map[string]any{"foo": 1}).yaml()
	const prefix = `JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding error: `
	pvc := `unknown field "spec.volumeClaimPolicies[0].templates[0].spec.foo"`
	status := `unknown field "status.foo"`
	r := t.Try(manifest, nil, "create", "-n", ns, "-f", "-")
	if r.OK {
		t.Errorf("create with unknown fields succeeded:\n%s", r.Out)
	}
	t.Logf("cluster: kubectl create: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, prefix+pvc+", "+status)
	if t.Failed() {
		return
	}
	code, out := checkPredicts(t, "", manifest)
	t.Logf("check: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d; the cluster refuses (strict field validation)", code)
	}
	contains(t, "check's output", out, prefix+pvc)
	contains(t, "check's output", out, prefix+status)
}
