package harness

import "strings"

// The quantity cases: a quantity string is read by the API server (the CRD's pattern)
// and by the webhooks (resource.ParseQuantity), each with its own words, and `check` must say
// what the cluster says.

const cpuPath = "spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.limits"

// withCPULimit is applied's manifest with a cpu limit of the text given in its container.
func withCPULimit(name, cpu string) string {
	return jobSet(name).suspend(false).replicatedJob(workers(1).job("completionMode", "Indexed").
		container("resources", map[string]any{"limits": map[string]any{"cpu": cpu}})).yaml()
}

// quantityOutsidePattern: "abc" fails the CRD's pattern; the API server refuses it before any
// webhook, naming the field in kube-openapi's notation (the map key as a field: limits.cpu).
func quantityOutsidePattern(t *T) {
	ns := newJobSet(t, "pattern", 1, false)
	old := applied("pattern", 1, "busybox:1.36")
	new := withCPULimit("pattern", "abc")
	want := cpuPath + `.cpu: Invalid value: "abc": ` + cpuPath + `.cpu in body should match '^(\+|-)?`
	refusedAlike(t, ns, old, new, want)
}

// quantityUndecodable: "1e1.5" passes the CRD's pattern but not ParseQuantity. On UPDATE only
// our validating webhook is called (upstream's UPDATE validation is removed, docs/install.md), and
// it refuses the value as undecodable, in ParseQuantity's words, at the field (apimachinery's
// notation, limits[cpu], as every webhook error), not as a change of an immutable field.
func quantityUndecodable(t *T) {
	ns := newJobSet(t, "decode", 1, false)
	old := applied("decode", 1, "busybox:1.36")
	new := withCPULimit("decode", "1e1.5")
	want := cpuPath + `[cpu]: Invalid value: "1e1.5": quantities must match the regular expression ` +
		`'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`
	refusedAlike(t, ns, old, new, want)
}

// refusedAlike applies new over old in ns and asserts that the cluster refuses it with want in its
// error, and that check, given the same pair, exits 1 with the same words.
func refusedAlike(t *T, ns, old, new, want string) {
	r := t.Try(new, nil, "apply", "-n", ns, "-f", "-")
	if r.OK {
		t.Errorf("apply succeeded; want a refusal with %q:\n%s", want, r.Out)
	}
	t.Logf("cluster: kubectl apply: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, want)
	if t.Failed() {
		return
	}
	code, out := checkPredicts(t, old, new)
	t.Logf("check: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d; the cluster refuses", code)
	}
	contains(t, "check's output", out, want)
	if strings.Contains(r.Err, celBlocked) {
		contains(t, "check's output", out, celBlocked)
	}
}
