// Command scripted-server serves covey's scripted OpenAI-compatible Chat
// Completions API on loopback, so covey (or any client) can be pointed at a
// model that answers from a script:
//
//	go run ./cmd/scripted-server -addr 127.0.0.1:8089 -script path.yaml
//
// It prints the base URL (ending in /v1) as one line on stdout and serves
// until SIGINT or SIGTERM. Without -script it serves a small default
// conversation (see scripted.DefaultConversation).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"covey/internal/scripted"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "scripted-server:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. It is main without the process around it, so
// tests can drive it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scripted-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8089", "listen address (port 0 picks a free port)")
	script := fs.String("script", "", "YAML or JSON script of conversations (default: a built-in greeting)")
	journal := fs.String("journal", "", "append each request to this file as a JSON line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	convs := []scripted.Conversation{scripted.DefaultConversation()}
	var windows map[string]scripted.Window
	if *script != "" {
		var err error
		if convs, err = scripted.LoadScript(*script); err != nil {
			return err
		}
		if windows, err = scripted.LoadWindows(*script); err != nil {
			return err
		}
	}
	opts := []scripted.Option{scripted.WithAddr(*addr)}
	if *journal != "" {
		f, err := os.OpenFile(*journal, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("open journal: %w", err)
		}
		defer f.Close()
		jw := &journalWriter{w: f, errs: stderr}
		opts = append(opts, scripted.WithOnRequest(jw.write))
	}

	s := scripted.New(opts...)
	for _, c := range convs {
		s.Add(c)
	}
	for model, w := range windows {
		s.SetWindow(model, w)
	}
	if err := s.Start(); err != nil {
		return err
	}
	defer s.Close()
	if _, err := fmt.Fprintln(stdout, s.URL()); err != nil {
		return fmt.Errorf("print URL: %w", err)
	}
	<-ctx.Done()
	return nil
}

// journalWriter appends entries as JSON lines; requests finish concurrently,
// so writes are serialised to keep lines whole.
type journalWriter struct {
	mu   sync.Mutex
	w    io.Writer
	errs io.Writer
}

// journalLine is an entry plus its request body (which never holds the
// Authorization header) when that body is JSON.
type journalLine struct {
	scripted.Entry
	Body json.RawMessage `json:"body,omitempty"`
}

func (j *journalWriter) write(e scripted.Entry) {
	line := journalLine{Entry: e}
	if json.Valid(e.Body) {
		line.Body = e.Body
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	b, err := json.Marshal(line)
	if err == nil {
		_, err = j.w.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintln(j.errs, "scripted-server: journal:", err)
	}
}
