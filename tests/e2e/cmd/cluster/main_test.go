package main

import (
	"strings"
	"testing"
)

func TestWalkthroughNamesThisRunsPathsAndPort(t *testing.T) {
	var b strings.Builder
	if err := writeWalkthrough(&b, walkthroughRun{
		Root: "/repo", Kubeconfig: "/repo/build-e2e/run/kubeconfig", Kubectl: "/repo/build-e2e/bin/kubectl",
		Logs: "/repo/build-e2e/run/logs", Metrics: 20123, Helm: "/repo/build-e2e/bin/helm",
		ServeURL: "https://127.0.0.1:20124", ServeCA: "/repo/build-e2e/run/webhook-certs/ca.crt",
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  export KUBECONFIG=/repo/build-e2e/run/kubeconfig\n",
		"  alias kubectl=/repo/build-e2e/bin/kubectl ",
		"grep 'Deleted Job' /repo/build-e2e/run/logs/scale-down-controller.log\n",
		"curl -s http://127.0.0.1:20123/metrics",
		`echo "$(date +%T.%3N) $l"`,
		"  ca=$(base64 -w0 /repo/build-e2e/run/webhook-certs/ca.crt)\n",
		"/repo/build-e2e/bin/helm install jobset-webhook charts/jobset-webhook ",
		`--set webhook.external.url=https://127.0.0.1:20124 --set webhook.external.caBundle="$ca"`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("walkthrough lacks %q:\n%s", want, b.String())
		}
	}
}
