package harness

// The ReplicatedJobScaler CRD of manifests/components/scale-down-controller on the real API
// server: the API alone (nothing applies a scaler to its JobSet yet, docs/elastic.md). What it
// proves is that `kubectl scale` and a read of `/scale`, as the HorizontalPodAutoscaler makes
// it, reach the three paths the CRD names.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// spec.replicas is defaulted so that `/scale` has a value to return; `kubectl scale` writes it,
// and `/scale` reads status.replicas and status.selector from the paths the CRD names.
// apiextensions-apiserver (kubernetes v1.37): the /scale handler is ScaleREST of
// pkg/registry/customresource/etcd.go, which builds an autoscaling/v1 Scale with
// scaleFromCustomResource from specReplicasPath, statusReplicasPath and labelSelectorPath; the
// field documentation of CustomResourceSubresourceScale (pkg/apis/apiextensions/v1/types.go)
// says a GET fails when specReplicasPath has no value, hence the default.
func TestReplicatedJobScalerScaleSubresource(t *testing.T) { run(t, scalerScaleSubresource) }

const scalerCRD = "replicatedjobscalers.elastic.jobset-webhook.io"

func scalerScaleSubresource(t *T) {
	crd := filepath.Join(t.c.Root, "manifests", "components", "scale-down-controller",
		"replicated-job-scaler-crd.yaml")
	t.Kubectl("apply", "-f", crd)
	// The chart's case installs the same CRD with helm's ownership: leave no copy behind.
	defer t.c.Kubectl("delete", "crd", scalerCRD, "--wait=false")
	t.Kubectl("wait", "--for", "condition=Established", "--timeout", "60s", "crd/"+scalerCRD)

	ns := t.Namespace("scaler")
	scaler := `apiVersion: elastic.jobset-webhook.io/v1alpha1
kind: ReplicatedJobScaler
metadata:
  name: demo-workers
spec:
  jobSetName: demo
  replicatedJobName: workers
`
	if r := t.Try(scaler, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("apply: %s", r.Err)
	}
	raw := "/apis/elastic.jobset-webhook.io/v1alpha1/namespaces/" + ns +
		"/replicatedjobscalers/demo-workers/scale"
	if s := scaleOf(t, raw); s.Spec.Replicas != 1 {
		t.Errorf("/scale spec.replicas %d before any scale; want the default 1", s.Spec.Replicas)
	}

	t.Kubectl("scale", "-n", ns, "replicatedjobscaler/demo-workers", "--replicas", "3")
	t.Kubectl("patch", "-n", ns, "replicatedjobscaler/demo-workers", "--subresource", "status",
		"--type", "merge", "-p",
		`{"status":{"replicas":2,"selector":"jobset.sigs.k8s.io/jobset-name=demo"}}`)
	s := scaleOf(t, raw)
	if s.Kind != "Scale" || s.APIVersion != "autoscaling/v1" {
		t.Errorf("/scale is %s %s; want autoscaling/v1 Scale", s.APIVersion, s.Kind)
	}
	if s.Spec.Replicas != 3 || s.Status.Replicas != 2 ||
		s.Status.Selector != "jobset.sigs.k8s.io/jobset-name=demo" {
		t.Errorf("/scale: spec.replicas %d, status.replicas %d, status.selector %q; want 3, 2 "+
			"and the selector written to status", s.Spec.Replicas, s.Status.Replicas, s.Status.Selector)
	}

	// A scale past maxReplicas is refused by the CRD's rules (x-kubernetes-validations), which
	// the API server checks on the scaler that a /scale write would make: ScaleREST.Update
	// (pkg/registry/customresource/etcd.go) updates the custom resource through the store, so
	// the custom resource's ValidateUpdate (pkg/registry/customresource/strategy.go) runs.
	t.Kubectl("patch", "-n", ns, "replicatedjobscaler/demo-workers", "--type", "merge", "-p",
		`{"spec":{"minReplicas":1,"maxReplicas":4}}`)
	r := t.Try("", nil, "scale", "-n", ns, "replicatedjobscaler/demo-workers", "--replicas", "5")
	if r.OK {
		t.Errorf("kubectl scale to 5 past maxReplicas 4 succeeded: %s", r.Out)
	}
	contains(t, "kubectl scale's error", r.Err, "replicas must be less than or equal to maxReplicas")
	if got := scaleOf(t, raw).Spec.Replicas; got != 3 {
		t.Errorf("/scale spec.replicas %d after a refused scale; want 3", got)
	}

	// The printer columns read the same fields.
	out := t.Kubectl("get", "-n", ns, "rjs", "demo-workers")
	for _, want := range []string{"JOBSET", "REPLICATEDJOB", "DESIRED", "CURRENT", "demo", "workers"} {
		contains(t, "kubectl get rjs", out, want)
	}
	if fields := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1]); len(fields) < 5 ||
		fields[3] != "3" || fields[4] != "2" {
		t.Errorf("kubectl get rjs: %q; want DESIRED 3, CURRENT 2", out)
	}
}

// scale is the part of an autoscaling/v1 Scale this case reads.
type scale struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Replicas int `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Replicas int    `json:"replicas"`
		Selector string `json:"selector"`
	} `json:"status"`
}

func scaleOf(t *T, raw string) scale {
	t.Helper()
	var s scale
	if err := json.Unmarshal([]byte(t.Kubectl("get", "--raw", raw)), &s); err != nil {
		t.Fatalf("/scale: %v", err)
	}
	return s
}
