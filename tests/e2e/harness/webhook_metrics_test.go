package harness

// This file's name sorts last on purpose: `go test` runs top-level tests in the order of their
// files' names, then of their declarations. TestWebhookMetrics reads the API server's counters
// of every call the cases before it made; TestRolloutUnderLoad stops the first serve and ends by
// registering a new one.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The API server's webhook metrics count no rejection or error of ours.
func TestWebhookMetrics(t *testing.T) { run(t, metricsClean) }

// Rollout under load: one of two serve processes SIGTERMed, no failed admission (-rollout=false
// skips it).
func TestRolloutUnderLoad(t *testing.T) {
	if !*rolloutFlag {
		t.Skip("left out with -rollout=false (docs/e2e.md)")
	}
	run(t, rolloutUnderLoad)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// apiserverMetrics reads the kube-apiserver's /metrics (as the administrator) and keeps the
// samples whose name starts with prefix.
func (c *Cluster) apiserverMetrics(prefix string) ([]sample, error) {
	out, err := c.Kubectl("get", "--raw", "/metrics")
	if err != nil {
		return nil, err
	}
	var res []sample
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		s := sample{labels: map[string]string{}}
		rest := line
		if i := strings.IndexByte(line, '{'); i >= 0 {
			s.name = line[:i]
			j := strings.LastIndexByte(line, '}')
			for _, kv := range splitLabels(line[i+1 : j]) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					s.labels[k] = strings.Trim(v, `"`)
				}
			}
			rest = line[j+1:]
		} else {
			s.name, rest, _ = strings.Cut(line, " ")
		}
		s.value, _ = strconv.ParseFloat(strings.TrimSpace(rest), 64)
		res = append(res, s)
	}
	return res, nil
}

func splitLabels(s string) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case ',':
			if !inQuote {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// webhookCounts sums the API server's admission webhook counters for jobset-webhook's entries:
// calls answered (by HTTP code), denials (error_type no_error: the webhook said no) and failures
// (the call failed: error_type calling_webhook_error or apiserver_internal_error).
type webhookCounts struct {
	requests, non200, denials, failures float64 // non200: neither 200 nor a denial's 422
}

func (c *Cluster) ourWebhookCounts() (webhookCounts, error) {
	var w webhookCounts
	ss, err := c.apiserverMetrics("apiserver_admission_webhook_")
	if err != nil {
		return w, err
	}
	for _, s := range ss {
		if !strings.Contains(s.labels["name"], "jobset-webhook.kb.io") {
			continue
		}
		switch s.name {
		case "apiserver_admission_webhook_request_total":
			w.requests += s.value
			// code is the webhook's HTTP status, or for a denial its status.code (422).
			if s.labels["code"] != "200" && s.labels["code"] != "422" {
				w.non200 += s.value
			}
		case "apiserver_admission_webhook_rejection_count":
			if s.labels["error_type"] == "no_error" {
				w.denials += s.value
			} else {
				w.failures += s.value
			}
		}
	}
	return w, nil
}

func metricsClean(t *T) {
	w, err := t.c.ourWebhookCounts()
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Logf("API server, jobset-webhook entries: %.0f calls, %.0f neither 200 nor 422, %.0f denials, %.0f failed calls",
		w.requests, w.non200, w.denials, w.failures)
	if w.requests == 0 {
		t.Errorf("the API server never called jobset-webhook")
	}
	if w.non200 != 0 || w.failures != 0 {
		t.Errorf("failed webhook calls: %.0f not HTTP 200, %.0f failures", w.non200, w.failures)
	}
}

// proxy is a TCP forwarder on one loopback address, spreading connections over backends round
// robin and leaving out a backend whose /readyz does not answer 200: a Service's endpoints
// with a readiness probe, in small (kube-proxy forwards connections, not requests, too).
type proxy struct {
	l        net.Listener
	backends []*Webhook
	ready    []atomic.Bool
	next     atomic.Uint64
	stop     chan struct{}
	wg       sync.WaitGroup
}

func startProxy(addr string, backends []*Webhook) (*proxy, error) {
	l, err := net.Listen("tcp", addr+":0")
	if err != nil {
		return nil, err
	}
	p := &proxy{l: l, backends: backends, ready: make([]atomic.Bool, len(backends)), stop: make(chan struct{})}
	for i := range backends {
		p.ready[i].Store(true)
	}
	go p.probe()
	go p.serve()
	return p, nil
}

func (p *proxy) port() int { return p.l.Addr().(*net.TCPAddr).Port }

func (p *proxy) probe() {
	for {
		for i, b := range p.backends {
			err := httpGet(plainHTTP, fmt.Sprintf("http://%s:%d/readyz", b.Addr, b.Health))
			p.ready[i].Store(err == nil)
		}
		select {
		case <-p.stop:
			return
		case <-time.After(time.Second):
		}
	}
}

func (p *proxy) serve() {
	for {
		conn, err := p.l.Accept()
		if err != nil {
			return
		}
		go p.forward(conn)
	}
}

func (p *proxy) forward(conn net.Conn) {
	defer conn.Close()
	n := len(p.backends)
	for try := 0; try < n; try++ {
		i := int(p.next.Add(1) % uint64(n))
		if !p.ready[i].Load() {
			continue
		}
		b := p.backends[i]
		up, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", b.Addr, b.Port), 2*time.Second)
		if err != nil {
			continue
		}
		defer up.Close()
		done := make(chan struct{}, 2)
		go func() { io.Copy(up, conn); up.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
		go func() { io.Copy(conn, up); conn.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
		<-done
		<-done
		return
	}
}

func (p *proxy) close() {
	close(p.stop)
	p.l.Close()
}

// rolloutUnderLoad: a second serve on 127.0.0.2, both behind a proxy on 127.0.0.3 that the
// webhook configurations point at; four clients apply scale updates without pause for 20 s; after
// 5 s the first serve gets SIGTERM (as the kubelet sends a pod being replaced). Every failed
// client update and every failed call counted by the API server is a failure.
func rolloutUnderLoad(t *T) {
	c := t.c
	a := c.Webhooks[0]
	b, err := c.StartWebhook("127.0.0.2")
	if err != nil {
		t.Fatalf("%v", err)
	}
	px, err := startProxy("127.0.0.3", []*Webhook{a, b})
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer px.close()
	if err := c.RegisterWebhooks([]*Webhook{{Addr: "127.0.0.3", Port: px.port()}}); err != nil {
		t.Fatalf("%v", err)
	}
	// Whatever runs after this case finds a serve registered directly again, as at the start.
	defer func() {
		w, err := c.StartWebhook("127.0.0.1")
		if err == nil {
			err = c.RegisterWebhooks([]*Webhook{w})
		}
		if err != nil {
			t.Errorf("registering a new serve after the rollout: %v", err)
		}
	}()
	ns := t.Namespace("rollout")
	const clients = 4
	for i := 0; i < clients; i++ {
		if r := t.Try(applied(fmt.Sprintf("load%d", i), 1, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
			t.Fatalf("create: %s", r.Err)
		}
	}
	before, err := c.ourWebhookCounts()
	if err != nil {
		t.Fatalf("%v", err)
	}
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var firstErrs []string
	end := time.Now().Add(20 * time.Second)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; time.Now().Before(end); n++ {
				r := t.Try(applied(fmt.Sprintf("load%d", i), 1+n%2, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-")
				if r.OK {
					ok.Add(1)
				} else {
					failed.Add(1)
					mu.Lock()
					if len(firstErrs) < 5 {
						firstErrs = append(firstErrs, strings.TrimSpace(r.Err))
					}
					mu.Unlock()
				}
			}
		}(i)
	}
	time.Sleep(5 * time.Second)
	termAt := time.Now()
	a.p.stop(30 * time.Second)
	t.Logf("first serve stopped %.1fs after SIGTERM (%v)", time.Since(termAt).Seconds(), a.p.cmd.ProcessState)
	wg.Wait()
	after, err := c.ourWebhookCounts()
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Logf("clients: %d updates applied, %d failed; API server: %.0f calls, %.0f not HTTP 200, %.0f failed calls",
		ok.Load(), failed.Load(), after.requests-before.requests, after.non200-before.non200, after.failures-before.failures)
	for _, e := range firstErrs {
		t.Logf("client error: %s", e)
	}
	if failed.Load() > 0 || after.failures > before.failures || after.non200 > before.non200 {
		t.Errorf("failed admissions during the rollout")
	}
}
