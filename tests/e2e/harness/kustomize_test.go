package harness

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A kustomize overlay whose images: entry changes the tag of a running JobSet: `kubectl apply -k`
// is refused by the webhook (the image is immutable: upstream's ValidateUpdate in
// pkg/webhooks/jobset_webhook.go, jobset v0.12.0), and `check`, rendering both trees with the same
// kubectl's kustomize, refuses the change in the same words, at the overlay's images: entry.
func TestKustomizeOverlayImage(t *testing.T) { run(t, kustomizeOverlayImage) }

func kustomizeOverlayImage(t *T) {
	ns := t.Namespace("kustomize")
	// A base holding the JobSet, and an overlay that sets the namespace and the image's tag.
	tree := func(side, tag string) string {
		dir := filepath.Join(t.c.Work, "kustomize-"+side)
		files := map[string]string{
			"base/jobset.yaml":                 applied("train", 1, "busybox:1.36"),
			"base/kustomization.yaml":          "resources:\n- jobset.yaml\n",
			"overlays/prod/kustomization.yaml": "resources:\n- ../../base\nnamespace: " + ns + "\nimages:\n- name: busybox\n  newTag: \"" + tag + "\"\n",
		}
		for name, text := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatalf("%v", err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatalf("%v", err)
			}
		}
		return dir
	}
	oldDir, newDir := tree("old", "1.36"), tree("new", "1.37")
	if r := t.Try("", nil, "apply", "-k", filepath.Join(oldDir, "overlays", "prod")); !r.OK {
		t.Fatalf("apply -k of the old overlay: %s", r.Err)
	}
	t.WaitJobs(ns, "train", jobNames("train", 1), 60*time.Second)
	want := imagePath + `: Invalid value: "busybox:1.37": field is immutable`
	r := t.Try("", nil, "apply", "-k", filepath.Join(newDir, "overlays", "prod"))
	if r.OK {
		t.Fatalf("apply -k of the new tag allowed:\n%s", r.Out)
	}
	t.Logf("cluster: kubectl apply -k: %s", r.Err)
	contains(t, "kubectl's error", r.Err, want)

	code, out := runCheck(t, "check", "--old", oldDir, "--new", newDir, "--kustomize", t.c.KubectlPath)
	t.Logf("check: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d; the cluster refuses", code)
	}
	contains(t, "check's output", out, filepath.Join(newDir, "overlays/prod/kustomization.yaml")+":6:3: "+want+` (old value: "busybox:1.36")`)
}
