package main

import (
	"strings"
	"testing"
)

func TestWalkthroughNamesThisRunsPathsAndPort(t *testing.T) {
	var b strings.Builder
	if err := writeWalkthrough(&b, "/repo", "/repo/build-e2e/run/kubeconfig", "/repo/build-e2e/bin/kubectl",
		"/repo/build-e2e/run/logs", 20123); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  export KUBECONFIG=/repo/build-e2e/run/kubeconfig\n",
		"  alias kubectl=/repo/build-e2e/bin/kubectl ",
		"grep 'Deleted Job' /repo/build-e2e/run/logs/scale-down-controller.log\n",
		"curl -s http://127.0.0.1:20123/metrics",
		`echo "$(date +%T.%3N) $l"`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("walkthrough lacks %q:\n%s", want, b.String())
		}
	}
}
