package main

import "strings"

// The quantity cases: a quantity string is read by the API server (the CRD's pattern)
// and by the webhooks (resource.ParseQuantity), each with its own words, and `check` must say
// what the cluster says.

const cpuPath = "spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.limits"

// withCPULimit gives the container of jobsetYAML's output a cpu limit of the text given.
func withCPULimit(y, cpu string) string {
	return strings.Replace(y, "              command:",
		"              resources: {limits: {cpu: \""+cpu+"\"}}\n              command:", 1)
}

// quantityOutsidePattern: "abc" fails the CRD's pattern; the API server refuses it before any
// webhook, naming the field in kube-openapi's notation (the map key as a field: limits.cpu).
func (s *Suite) quantityOutsidePattern(t *T) {
	ns := s.newJobSet(t, "pattern", 1, false)
	old := applied("pattern", 1, "busybox:1.36")
	new := withCPULimit(old, "abc")
	want := cpuPath + `.cpu: Invalid value: "abc": ` + cpuPath + `.cpu in body should match '^(\+|-)?`
	s.refusedAlike(t, ns, old, new, want)
}

// quantityUndecodable: "1e1.5" passes the CRD's pattern but not ParseQuantity. On UPDATE only
// our validating webhook is called (upstream's UPDATE validation is removed, docs/install.md), and
// it refuses the value as undecodable, in ParseQuantity's words, at the field (apimachinery's
// notation, limits[cpu], as every webhook error), not as a change of an immutable field.
func (s *Suite) quantityUndecodable(t *T) {
	ns := s.newJobSet(t, "decode", 1, false)
	old := applied("decode", 1, "busybox:1.36")
	new := withCPULimit(old, "1e1.5")
	want := cpuPath + `[cpu]: Invalid value: "1e1.5": quantities must match the regular expression ` +
		`'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`
	s.refusedAlike(t, ns, old, new, want)
}

// refusedAlike applies new over old in ns and asserts that the cluster refuses it with want in its
// error, and that check, given the same pair, exits 1 with the same words.
func (s *Suite) refusedAlike(t *T, ns, old, new, want string) {
	r := t.Try(new, nil, "apply", "-n", ns, "-f", "-")
	if r.OK {
		t.Errorf("apply succeeded; want a refusal with %q:\n%s", want, r.Out)
	}
	t.Note("cluster: kubectl apply: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, want)
	if len(t.errors) > 0 {
		return
	}
	code, out := s.checkPredicts(t, old, new)
	t.Note("check: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d; the cluster refuses", code)
	}
	contains(t, "check's output", out, want)
}
