package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// get fetches url with a cookie jar (the token's cookie kept across the
// redirect that drops it from the address) and returns the page.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestUICommandServesAndOpensThePrintedAddress(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.Run(t, repo, "jj", "describe", "-m", "Serve the page")
	var out bytes.Buffer
	var opened string
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	o := &uiOptions{Open: true, Dir: func(string) (string, error) { return repo, nil }, Getenv: os.Getenv, Out: &out,
		Opener: func(u string) error { opened = u; return nil }, Ready: func(u string) { ready <- u }}
	go func() { done <- runUI(ctx, o) }()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("planq ui stopped: %v\n%s", err, out.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Errorf("address %q: want http://127.0.0.1:PORT/?token=…", url)
	}
	if !strings.Contains(out.String(), url) {
		t.Errorf("the address is not printed:\n%s", out.String())
	}
	if opened != url {
		t.Errorf("--open opened %q, want %q", opened, url)
	}
	code, page := get(t, url)
	if code != http.StatusOK || !strings.Contains(page, "Serve the page") {
		t.Errorf("GET the printed address: %d\n%s", code, page)
	}
	if code, _ := get(t, strings.Split(url, "?")[0]); code != http.StatusForbidden {
		t.Errorf("GET without the token: %d, want 403", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("planq ui after Ctrl-C: %v", err)
	}
}

func TestUICommandRefusesBadPort(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	_, errs, code := runIn(t, repo, "ui", "--port", "70000")
	if code != 1 || !strings.Contains(errs, "--port 70000: use 1 to 65535") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	_, errs, code = runIn(t, t.TempDir(), "ui")
	if code != 1 || !strings.Contains(errs, "not in a jj repo") {
		t.Errorf("outside a repo: exit %d, stderr %q", code, errs)
	}
}

// The planq binary prints an address that serves the page.
func TestUIBinaryPrintsAWorkingAddress(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	planq := testenv.BuildPlanq(t, "../..")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, planq, "ui", "--repo", repo)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("planq ui printed %q: %v", line, err)
	}
	i := strings.Index(line, "http://127.0.0.1:")
	if i < 0 {
		t.Fatalf("planq ui printed %q: no address", line)
	}
	url := strings.TrimSpace(line[i:])
	if code, page := get(t, url); code != http.StatusOK || !strings.Contains(page, "Agents") {
		t.Errorf("GET %s: %d\n%s", url, code, page)
	}
}
