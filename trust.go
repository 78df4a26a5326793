package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"covey/config"
)

// askProjectTrust asks on the terminal, before the session starts, whether
// the project's settings that need trust may apply, when they have not
// been answered yet, and remembers the answer (keyed to those settings:
// a change asks again). It reads one line; only y or yes trusts.
func askProjectTrust(ctx context.Context, o *options, in io.Reader, out io.Writer) error {
	if o.trustProject {
		return nil
	}
	root, err := workDir()
	if err != nil {
		return err
	}
	_, tr, err := config.LoadTrusted(root, config.LoadOptions{})
	if err != nil || !tr.Ask() {
		return err // a broken config is reported when the session opens
	}
	fmt.Fprint(out, config.TrustQuestion(tr))
	fmt.Fprintf(out, "Trust %s's settings? [y/N] ", root)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(in).ReadString('\n')
		answer <- line
	}()
	var line string
	select {
	case <-ctx.Done():
		fmt.Fprintln(out)
		return ctx.Err()
	case line = <-answer:
	}
	yes := false
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		yes = true
	}
	return config.SetTrust(root, tr, yes, nil)
}

// skippedSettings is the line naming the project's settings that were left
// out, and how to trust them.
func skippedSettings(tr config.Trust) string {
	return fmt.Sprintf("skipped the project's settings, not trusted (.covey/config.yaml): %s; to trust them: run covey here and answer y, pass --trust-project, or add the folder to trusted_folders in your config",
		strings.Join(tr.Skipped(), ", "))
}
