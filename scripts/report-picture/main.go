// Command report-picture makes the README's picture of a crew report
// (docs/images/crew-report.png): it runs a scripted crew headless through
// the built binary, against covey's own scripted model server on loopback
// (no key, no network), renders `covey report --format html` and takes a
// screenshot of the page in headless Chromium.
//
//	go run ./scripts/report-picture [-covey BIN] [-o docs/images/crew-report.png] [-html FILE]
//
// The crew: a scout maps the code, a coder writes the limiter and then
// server.go, which the docs writer read while at work (a collision, on
// both rows), and a test writer in the background whose first read fails.
// Turns are delayed so the timeline has a shape; the times vary a little
// from run to run.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"covey/internal/scripted"
	"covey/tools/toolname"
)

// maxBytes bounds the picture: the README loads it on every visit.
const maxBytes = 150 << 10

func main() {
	bin := flag.String("covey", "", "the covey binary (default: go build of this checkout)")
	out := flag.String("o", filepath.Join("docs", "images", "crew-report.png"), "the PNG to write")
	htmlOut := flag.String("html", "", "also keep the report's page here")
	size := flag.String("size", "1280,800", "the browser window, width,height")
	flag.Parse()
	if err := run(*bin, *out, *htmlOut, *size); err != nil {
		fmt.Fprintln(os.Stderr, "report-picture:", err)
		os.Exit(1)
	}
}

func run(bin, out, htmlOut, size string) error {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		return errors.New("chromium is not installed (apt-get install chromium)")
	}
	tmp, err := os.MkdirTemp("", "covey-report-picture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "covey")
		if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %w\n%s", err, b)
		}
	}
	ws := filepath.Join(tmp, "ratelimit")
	if err := workspace(ws); err != nil {
		return err
	}
	srv := scripted.New()
	for _, c := range crew() {
		srv.Add(c)
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Close()
	home := filepath.Join(tmp, "home")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"LANG=C.UTF-8", "OPENAI_BASE_URL=" + srv.URL()}
	covey := func(args ...string) ([]byte, error) {
		cmd := exec.Command(bin, append([]string{"--model", "gpt-5-mini"}, args...)...)
		cmd.Dir, cmd.Env = ws, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("covey %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return b, nil
	}
	if _, err := covey("--permission-mode", "acceptEdits", "-p", "add rate limiting to the API, with tests and docs"); err != nil {
		return err
	}
	if p := srv.Unmatched(); len(p) > 0 {
		return fmt.Errorf("the crew made %d requests the script does not answer", len(p))
	}
	page := filepath.Join(tmp, "crew-report.html")
	if _, err := covey("report", "--format", "html", "-o", page); err != nil {
		return err
	}
	if htmlOut != "" {
		b, err := os.ReadFile(page)
		if err != nil {
			return err
		}
		if err := os.WriteFile(htmlOut, b, 0o644); err != nil { //nolint:gosec // the user's own -html path
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	shot := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(tmp, "chromium"), "--window-size="+size, "--screenshot="+abs, "file://"+page)
	if b, err := shot.CombinedOutput(); err != nil {
		return fmt.Errorf("chromium: %w\n%s", err, b)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if fi.Size() > maxBytes {
		return fmt.Errorf("%s is %d KB, over %d KB: use a smaller -size", out, fi.Size()>>10, maxBytes>>10)
	}
	fmt.Printf("%s: %d KB\n", out, fi.Size()>>10)
	return nil
}

// workspace is a small Go service in a git repository.
func workspace(dir string) error {
	files := map[string]string{
		"go.mod":      "module example.com/ratelimit\n\ngo 1.24\n",
		"main.go":     "package main\n\nimport \"net/http\"\n\nfunc main() {\n\thttp.ListenAndServe(\":8080\", routes())\n}\n",
		"server.go":   "package main\n\nimport \"net/http\"\n\nfunc routes() http.Handler {\n\tmux := http.NewServeMux()\n\tmux.HandleFunc(\"/api/items\", items)\n\treturn mux\n}\n\nfunc items(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte(\"[]\"))\n}\n",
		"README.md":   "# ratelimit\n\nA small API.\n",
		"docs/api.md": "# API\n\n- GET /api/items\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=covey", "GIT_AUTHOR_EMAIL=covey@example.com", "GIT_COMMITTER_NAME=covey", "GIT_COMMITTER_EMAIL=covey@example.com")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, b)
		}
	}
	return nil
}

func step(delay time.Duration, text string, calls ...scripted.Call) scripted.Turn {
	return scripted.Turn{Delay: delay, Text: text, ToolCalls: calls, ChunkSize: 40, ChunkDelay: 15 * time.Millisecond}
}

func tool(name string, args map[string]any) scripted.Call {
	return scripted.Call{Name: name, Args: args}
}

const ms = time.Millisecond

// crew is the script: the main agent and its four children.
func crew() []scripted.Conversation {
	limiter := "package main\n\nimport (\n\t\"net/http\"\n\t\"sync\"\n\t\"time\"\n)\n\n// limit allows n requests per window per client.\nfunc limit(n int, window time.Duration, next http.Handler) http.Handler {\n\tvar mu sync.Mutex\n\tseen := map[string][]time.Time{}\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n\t\tmu.Lock()\n\t\tnow := time.Now()\n\t\tkeep := seen[r.RemoteAddr][:0]\n\t\tfor _, t := range seen[r.RemoteAddr] {\n\t\t\tif now.Sub(t) < window {\n\t\t\t\tkeep = append(keep, t)\n\t\t\t}\n\t\t}\n\t\tok := len(keep) < n\n\t\tif ok {\n\t\t\tkeep = append(keep, now)\n\t\t}\n\t\tseen[r.RemoteAddr] = keep\n\t\tmu.Unlock()\n\t\tif !ok {\n\t\t\thttp.Error(w, \"slow down\", http.StatusTooManyRequests)\n\t\t\treturn\n\t\t}\n\t\tnext.ServeHTTP(w, r)\n\t})\n}\n"
	server := "package main\n\nimport (\n\t\"net/http\"\n\t\"time\"\n)\n\nfunc routes() http.Handler {\n\tmux := http.NewServeMux()\n\tmux.Handle(\"/api/items\", limit(60, time.Minute, http.HandlerFunc(items)))\n\treturn mux\n}\n\nfunc items(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte(\"[]\"))\n}\n"
	task := func(name, typ, desc, marker string, extra map[string]any) map[string]any {
		t := map[string]any{"name": name, "subagent_type": typ, "description": desc, "prompt": marker + " " + desc + "."}
		for k, v := range extra {
			t[k] = v
		}
		return t
	}
	return []scripted.Conversation{
		{Name: "main", Match: scripted.Match{SystemContains: "You are covey"}, Turns: []scripted.Turn{
			step(300*ms, "Four helpers: a scout, the limiter, its tests in the background, the docs.", scripted.Call{Name: toolname.Task, Args: map[string]any{"tasks": []map[string]any{
				task("scout", "Explore", "map the request path", "[pic:scout]", nil),
				task("coder", "general-purpose", "write the rate limiter", "[pic:coder]", map[string]any{"touches": []string{"limit.go", "server.go"}}),
				task("tester", "general-purpose", "test the limiter", "[pic:tester]", map[string]any{"run_in_background": true, "touches": []string{"limit_test.go"}}),
				task("docs", "general-purpose", "document the limit", "[pic:docs]", map[string]any{"touches": []string{"docs/"}}),
			}}}),
			step(400*ms, "The limiter and docs are in; the tests are still running."),
			step(500*ms, "Done: /api/items allows 60 requests a minute per client, with tests and docs."),
		}},
		{Name: "scout", Match: scripted.Match{FirstUser: "[pic:scout]"}, Turns: []scripted.Turn{
			step(200*ms, "", tool(toolname.Glob, map[string]any{"pattern": "**/*.go"})),
			step(300*ms, "", tool(toolname.Grep, map[string]any{"pattern": "HandleFunc", "output_mode": "content"})),
			step(250*ms, "", tool(toolname.ReadFile, map[string]any{"path": "server.go"})),
			step(300*ms, "routes() in server.go mounts /api/items; main.go serves it."),
		}},
		{Name: "docs", Match: scripted.Match{FirstUser: "[pic:docs]"}, Turns: []scripted.Turn{
			step(250*ms, "", tool(toolname.ReadFile, map[string]any{"path": "docs/api.md"})),
			step(300*ms, "", tool(toolname.ReadFile, map[string]any{"path": "server.go"})),
			step(1400*ms, "", tool(toolname.WriteFile, map[string]any{"path": "docs/api.md", "content": "# API\n\n- GET /api/items: 60 requests a minute per client, then 429.\n"})),
			step(300*ms, "docs/api.md says the limit."),
		}},
		{Name: "coder", Match: scripted.Match{FirstUser: "[pic:coder]"}, Turns: []scripted.Turn{
			step(300*ms, "", tool(toolname.ReadFile, map[string]any{"path": "server.go"})),
			step(700*ms, "", tool(toolname.WriteFile, map[string]any{"path": "limit.go", "content": limiter})),
			step(500*ms, "", tool(toolname.WriteFile, map[string]any{"path": "server.go", "content": server})),
			step(300*ms, "limit.go holds the limiter; routes() wraps /api/items."),
		}},
		{Name: "tester", Match: scripted.Match{FirstUser: "[pic:tester]"}, Turns: []scripted.Turn{
			step(300*ms, "", tool(toolname.ReadFile, map[string]any{"path": "limit_test.go"})),
			step(1300*ms, "", tool(toolname.ReadFile, map[string]any{"path": "limit.go"})),
			step(900*ms, "", tool(toolname.WriteFile, map[string]any{"path": "limit_test.go", "content": "package main\n\nimport \"testing\"\n\nfunc TestLimit(t *testing.T) {}\n"})),
			step(600*ms, "limit_test.go covers the window."),
		}},
	}
}
