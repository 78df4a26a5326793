package sessionfile

import (
	"io"
	"sync"
)

// RedactingWriter writes through to an underlying writer with every
// secret (in each of the forms the session file redacts) replaced by
// "[redacted]": for what covey writes besides the session file (headless
// stream-json, the --debug log). Each Write is redacted on its own, so a
// secret must arrive whole within one Write; a line-per-Write writer
// (a JSON encoder, slog) gives that. Secrets may be set after it is made.
// It is safe for concurrent use.
type RedactingWriter struct {
	mu  sync.Mutex
	w   io.Writer
	red *redactor
}

// NewRedactingWriter returns a writer to w that redacts secrets.
func NewRedactingWriter(w io.Writer, secrets []string) *RedactingWriter {
	return &RedactingWriter{w: w, red: newRedactor(secrets)}
}

// SetSecrets replaces the secrets to redact.
func (r *RedactingWriter) SetSecrets(secrets []string) {
	red := newRedactor(secrets)
	r.mu.Lock()
	r.red = red
	r.mu.Unlock()
}

// Write writes p with its secrets replaced; it reports len(p) written
// when the whole redacted text was written.
func (r *RedactingWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.red.line(append([]byte(nil), p...))
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
