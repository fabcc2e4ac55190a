package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/planq-dev/planq/internal/testenv"
)

// browser starts a headless Chromium for the test and returns a tab's context.
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := testenv.EnsureChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // Debian's chromium starts as root only without its sandbox
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	// One budget for the whole test, ending before go test's -timeout: a
	// browser on a busy machine is slow, not wrong.
	end, _ := testenv.Context(t).Deadline()
	ctx, cancelTimeout := context.WithDeadline(ctx, end)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start chromium (%s): %v", bin, err)
	}
	return ctx
}

// seen waits until the element sel shows text including want, as a
// person would see it: the DOM is polled, nothing sleeps.
func seen(sel, want string) chromedp.Action[chromedp.Void] {
	s, _ := json.Marshal(sel)
	w, _ := json.Marshal(want)
	expr := fmt.Sprintf(`(() => { for (const el of document.querySelectorAll(%s)) { if (el.innerText.includes(%s)) return true; } return false; })()`, s, w)
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(30*time.Second))
}

// present waits until document.querySelector(sel) finds something.
func present(sel string) chromedp.Action[chromedp.Void] {
	s, _ := json.Marshal(sel)
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`!!document.querySelector(%s)`, s), chromedp.WithPollingTimeout(30*time.Second))
}

// screenshot keeps what the page shows as <page>.png in the test's artifacts
// directory ($PLANQ_TEST_ARTIFACTS/ui, else a temp dir) and, with
// PLANQ_UPDATE_SCREENSHOTS=1, as docs/ui/<page>.png for the README.
func screenshot(t *testing.T, ctx context.Context, artifacts, page string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot of %s: %v", page, err)
	}
	if len(png) < 10_000 {
		t.Errorf("screenshot of %s is %d bytes: the page looks blank", page, len(png))
	}
	dirs := []string{artifacts}
	if os.Getenv("PLANQ_UPDATE_SCREENSHOTS") == "1" {
		dirs = append(dirs, filepath.Join("..", "docs", "ui"))
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, page+".png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

func artifactsDir(t *testing.T) string {
	if d := os.Getenv("PLANQ_TEST_ARTIFACTS"); d != "" {
		return filepath.Join(d, "ui")
	}
	return t.TempDir()
}

func TestUIBrowser(t *testing.T) {
	testenv.SkipShort(t, "drives a real browser")
	p := buildProject(t)
	ctx := browser(t)
	s, base := startServer(t, p.Repo)
	artifacts := artifactsDir(t)
	// load loads path with the token, as a person following the printed
	// address there would, so each subtest stands alone.
	load := func(path string) chromedp.Action[chromedp.Void] {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		return chromedp.Navigate(base + path + sep + "token=" + s.Token())
	}
	run := func(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
			t.Fatalf("%v\npage content:\n%s", err, html)
		}
	}

	t.Run("overview", func(t *testing.T) {
		// The printed URL carries the token; the page drops it from the
		// address and keeps it in a cookie.
		run(t, chromedp.Navigate(s.URL()),
			seen(`section.agent[data-agent="default"] .task`, routerTask),
			seen(`section.agent[data-agent="default"] .gate`, "declared"),
			// What is left and what is open, item by item.
			seen(`section.agent[data-agent="default"] .cardlist.left h3`, "Left to do · 2"),
			seen(`section.agent[data-agent="default"] .cardlist.left li`, "a 429 response with Retry-After"),
			seen(`section.agent[data-agent="default"] .cardlist.left li`, "document the limits in README.md"),
			seen(`section.agent[data-agent="default"] .cardlist.questions li`, "per API key or per client IP behind a proxy?"),
			seen(`section.agent[data-agent="docs"] .task`, "Document the rate limits"),
			seen(`section.agent[data-agent="docs"] .cardlist.left li`, "a Rate limits section in README.md"),
			// The change links to its lineage's transcript, the lineage to its changes.
			seen(`section.agent[data-agent="default"] .links a[href^="/transcript?root=`+p.Root+`"]`, "transcript"),
			seen(`section.agent[data-agent="default"] .links a[href^="/changes?lineage=`+p.Root+`"]`, "2 changes"),
			seen(`main`, "State repo"),
			seen(`main table.list`, limiterTask), // the session lineage
		)
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil || strings.Contains(loc, "token=") {
			t.Errorf("address %q (%v): the token should be gone from it", loc, err)
		}
		screenshot(t, ctx, artifacts, "overview")
		// A lineage's changes, from its link: both of them, with the summary.
		// Following a link navigates: wait for the new page's graph first.
		run(t, chromedp.Click(chromedp.CSS(`section.agent[data-agent="default"] .links a[href^="/changes?lineage="]`)),
			chromedp.WaitVisible(chromedp.CSS(`ol.graph`)),
			seen(`main h1 .sub`, "session lineage"),
			seen(`li.node summary .title`, limiterTask),
			seen(`li.node summary .title`, routerTask),
		)
	})

	t.Run("changes", func(t *testing.T) {
		wc := `li.node.wc details.change`
		run(t, load("/changes"),
			seen(wc+` summary .title`, routerTask),
			seen(wc+` .sec[data-section="Key decisions"]`, "limit before authentication"),
			seen(wc+` .sec[data-section="Left to do"]`, "a 429 response with Retry-After"),
			seen(wc+` .sec[data-section="Open questions"]`, "per API key or per client IP"),
			seen(wc+` summary .statline`, "1 file"),
			seen(`li.node summary .title`, limiterTask),
			seen(`li.node summary .lineage`, "lineage"),
			// The diff loads when asked for.
			chromedp.Click(chromedp.CSS(wc+` details.diff > summary`)),
			seen(wc+` pre.diff`, "api/router.go"),
			seen(wc+` pre.diff .add`, "return 429"),
		)
		screenshot(t, ctx, artifacts, "changes")
	})

	t.Run("live update after jj describe", func(t *testing.T) {
		run(t, load("/changes"),
			present(`body[data-live="on"]`), // the event stream is open
			seen(`li.node.wc summary .title`, routerTask),
		)
		testenv.Run(t, p.Repo, "jj", "describe", "-m", "Wire the limiter into the router and answer 429\n\nDone:\n- the 429 response\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none\n")
		run(t, seen(`li.node.wc summary .title`, "answer 429"),
			seen(`li.node.wc .sec[data-section="Done"]`, "the 429 response"))
	})

	t.Run("live update after a state write", func(t *testing.T) {
		run(t, load("/state?branch=agent-main&kind=learnings"),
			present(`body[data-live="on"]`),
			seen(`ol.entries li.entry`, "jj describe keeps the change id"),
		)
		// Another planq process (an agent's planq_learn) writes the branch.
		if _, err := openState(t, p.Repo, false).Learn(context.Background(), "Retry-After must be whole seconds", "Checked against RFC 9110"); err != nil {
			t.Fatal(err)
		}
		run(t, seen(`ol.entries li.entry`, "Retry-After must be whole seconds"))
	})

	t.Run("transcript", func(t *testing.T) {
		run(t, load("/transcript"),
			seen(`ul.lineages li.sel`, limiterTask),
			seen(`ol.transcript li.user`, "100 requests a minute per key"),
			seen(`ol.transcript li.assistant`, "next I wire it into the router"),
			seen(`details.fold.call > summary`, "tool call: Bash"),
			seen(`details.fold.result > summary`, "tool result: ok"),
		)
		isOpen, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("details.fold.call").open`))
		if err != nil || isOpen {
			t.Errorf("the tool call is shown open (%v); it should be folded", err)
		}
		run(t, chromedp.Click(chromedp.CSS(`details.fold.call > summary`)),
			seen(`details.fold.call[open] pre`, `go test ./api/`))
		screenshot(t, ctx, artifacts, "transcript")
		run(t, load("/transcript?root="+p.Root+"&q=token+bucket"),
			seen(`ol.hits li`, "token bucket in api/limit.go"))
	})

	t.Run("state", func(t *testing.T) {
		run(t, load("/state"),
			seen(`ul.branches`, "global"),
			seen(`ul.branches`, "main"),
			chromedp.SendKeys(chromedp.CSS(`form.search input[type=search]`), "token bucket"),
		)
		// Submitting navigates; wait for the results page to be there.
		run(t, chromedp.Submit(chromedp.CSS(`form.search input[type=search]`)),
			chromedp.WaitVisible(chromedp.CSS(`ol.hits`)),
			seen(`ol.hits li.hit`, "Token bucket per API key"),
		)
		screenshot(t, ctx, artifacts, "state")
		// An entry that names its change links to it.
		run(t, load("/state?branch=agent-main&kind=changelog"),
			seen(`ol.entries li.entry.end a.change`, "change "+p.Current[:12]),
			chromedp.Click(chromedp.CSS(`ol.entries li.entry.end a.change[href$="`+p.Current+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`ol.graph`)),
			seen(`li.node details.change[open] summary .title`, routerTask),
		)
		run(t, load("/state?branch=agent-main&kind=learnings"),
			seen(`ol.entries li.entry`, "jj describe keeps the change id"),
			load("/state?branch=agent-main&kind=handoffs"),
			seen(`ol.entries li.entry`, "Return 429 with Retry-After"),
			load("/state?branch=agent-main&kind=scratch"),
			seen(`main .md`, "check the proxy's X-Forwarded-For"),
			load("/state?branch=agent-main&kind=checkpoints"),
			seen(`main table.list`, "before-router"),
		)
	})

	t.Run("metrics", func(t *testing.T) {
		run(t, load("/metrics"),
			seen(`main`, "Gate verdicts"),
			seen(`main`, "1 declarations checked; 0 found 0 files changed while locked"),
			seen(`main table.list`, "locked"),
			seen(`main table.list`, "jj_describe"),
			seen(`main table.list`, "retry budget"),
		)
		screenshot(t, ctx, artifacts, "metrics")
	})
}

// TestUIBrowserAtScale loads every page of a project the way a busy team
// leaves one (a conflicted workspace with 20 long file names and more to do
// than a card shows, lines without a break in a description, a summary
// item, a state entry and a transcript, 10,000 session lineages and two bad
// lineage records) at a desktop's and a phone's width: no page is wider
// than the window, the bad records are reported once and break nothing, and
// the Overview still says what is left.
func TestUIBrowserAtScale(t *testing.T) {
	testenv.SkipShort(t, "drives a real browser over 10,000 lineages")
	p := buildProject(t)
	fixer := addScale(t, p, 10_000)
	ctx := browser(t)
	s, base := startServer(t, p.Repo)
	artifacts := artifactsDir(t)
	run := func(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
			t.Fatalf("%v\npage content:\n%.20000s", err, html)
		}
	}
	run(t, chromedp.Navigate(s.URL()), present(`main`))

	t.Run("overview says what is left", func(t *testing.T) {
		card := `section.agent[data-agent="fixer"]`
		steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/"),
			seen(card+` .task`, fixerTask),
			seen(card+` .cardlist.left h3`, fmt.Sprintf("Left to do · %d", len(fixerLeft))),
			seen(card+` .cardlist.left .more`, fmt.Sprintf("and %d more", len(fixerLeft)-5)),
			seen(card+` .cardlist.questions li`, "keep both limits, or the lower one?"),
			seen(card+` .cardlist.conflicts h3`, "Conflicts · 20 files"),
			seen(card+` .cardlist.conflicts .more`, "and 15 more"),
			seen(`main .more`, "and 9993 more"), // 10,001 good lineages, the newest 8 listed
		}
		for _, it := range fixerLeft[:5] {
			steps = append(steps, seen(card+` .cardlist.left li`, strings.Trim(it, "`")[:20]))
		}
		run(t, steps...)
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+card+` .cardlist.left li').length`))
		if err != nil || n != 5 {
			t.Errorf("the card lists %d Left to do items (%v), want the first 5", n, err)
		}
	})

	t.Run("bad records are reported once and break nothing", func(t *testing.T) {
		for _, page := range []string{"/", "/transcript"} {
			run(t, chromedp.Navigate(base+page),
				seen(`.bad-records`, "2 session records skipped"),
				seen(`.bad-records`, "abc123"),
				seen(`.bad-records`, "planq doctor"))
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".bad-records").length`))
			if err != nil || n != 1 {
				t.Errorf("%s reports the bad records %d times (%v), want once", page, n, err)
			}
		}
		run(t, chromedp.Navigate(base+"/changes"),
			seen(`li.node summary .title`, routerTask),
			seen(`li.node summary .title`, fixerTask))
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main .error").length`)); err != nil || n != 0 {
			t.Errorf("the Changes page shows %d errors (%v)", n, err)
		}
	})

	pages := []string{"/", "/changes", "/changes?change=" + fixer, "/changes?lineage=" + p.Root,
		"/transcript", "/transcript?root=" + p.Root + "&before=-1", "/transcript?root=" + p.Root + "&q=handlers",
		"/state", "/state?branch=agent-main&kind=learnings", "/state?branch=agent-main&kind=checkpoints", "/state?q=path",
		"/metrics"}
	for _, w := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 900, false}, {"phone", 375, 812, true}} {
		t.Run("no page wider than a "+w.name, func(t *testing.T) {
			opts := []chromedp.EmulateViewportOption{}
			if w.mobile {
				opts = append(opts, chromedp.EmulateMobile)
			}
			run(t, chromedp.EmulateViewport(w.width, w.height, opts...))
			for _, page := range pages {
				run(t, chromedp.Navigate(base+page), present(`main > *`))
				// Open every fold, so what they hold is laid out too.
				got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS))
				if err != nil {
					t.Fatalf("%s: %v", page, err)
				}
				if len(got) > 0 {
					t.Errorf("%s at %dpx: the page is wider than the window: %s", page, w.width, strings.Join(got, "; "))
				}
			}
			run(t, chromedp.Navigate(base+"/"), present(`section.agent`))
			screenshot(t, ctx, artifacts, "scale-overview-"+w.name)
			run(t, chromedp.Navigate(base+"/changes?change="+fixer), present(`li.node`))
			screenshot(t, ctx, artifacts, "scale-change-"+w.name)
		})
	}
}

// overflowJS opens every details element and returns nothing when the
// document is no wider than the window, else its width and the elements
// that stick out (at most 5).
const overflowJS = `(() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const doc = document.documentElement, w = doc.clientWidth;
  if (doc.scrollWidth <= w) return [];
  const out = ["document " + doc.scrollWidth + "px, window " + w + "px"];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right > w + 1 && out.length < 6) out.push(el.tagName.toLowerCase() + "." + el.className + " to " + Math.round(r.right) + "px");
  }
  return out;
})()`
