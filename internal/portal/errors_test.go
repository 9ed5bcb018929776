package portal

import (
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"filebridge/internal/model"
)

var update = flag.Bool("update", false, "rewrite golden files")

// errorCase is a golden file of testdata/errors: a status and content type,
// "--- body", the body, "--- want", the expected error text.
type errorCase struct {
	status      int
	contentType string
	body        string
	want        string
	hint        string // Hint(err, "main"); "" when none
}

func readErrorCase(t *testing.T, path string) errorCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(b), "--- body\n")
	body, want, ok2 := strings.Cut(rest, "--- want\n")
	if !ok || !ok2 {
		t.Fatalf("%s: want sections \"--- body\" and \"--- want\"", path)
	}
	var ec errorCase
	for _, line := range strings.Split(strings.TrimSpace(head), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(k) {
		case "status":
			ec.status, _ = strconv.Atoi(strings.TrimSpace(v))
		case "content-type":
			ec.contentType = strings.TrimSpace(v)
		}
	}
	want, hint, _ := strings.Cut(want, "--- hint\n")
	ec.body = strings.TrimSuffix(body, "\n")
	ec.want, ec.hint = strings.TrimSpace(want), strings.TrimSpace(hint)
	return ec
}

func TestDecodeErrorGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.txt")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			ec := readErrorCase(t, path)
			srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ec.contentType)
				w.WriteHeader(ec.status)
				_, _ = w.Write([]byte(ec.body))
			})
			c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.MaxRetries = 0 })
			_, err := c.Page(t.Context(), Connections, nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T %v, want *Error", err, err)
			}
			if e.Status != ec.status {
				t.Errorf("status: got %d want %d", e.Status, ec.status)
			}
			got, hint := err.Error(), Hint(err, "main")
			if strings.Contains(got, testToken) {
				t.Fatalf("error carries the token: %s", got)
			}
			if *update {
				head, _, _ := strings.Cut(string(must(os.ReadFile(path))), "--- want\n")
				golden := head + "--- want\n" + got + "\n"
				if hint != "" {
					golden += "--- hint\n" + hint + "\n"
				}
				_ = os.WriteFile(path, []byte(golden), 0o644)
				return
			}
			if got != ec.want {
				t.Errorf("error text\n got: %s\nwant: %s", got, ec.want)
			}
			if hint != ec.hint {
				t.Errorf("hint\n got: %s\nwant: %s", hint, ec.hint)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestErrorClasses(t *testing.T) {
	tests := []struct {
		status int
		class  Class
		is     func(error) bool
	}{
		{400, Invalid, IsInvalid},
		{422, Invalid, IsInvalid},
		{401, Auth, IsAuth},
		{403, Auth, IsAuth},
		{404, NotFound, IsNotFound},
		{409, Conflict, IsConflict},
		{429, Transient, IsTransient},
		{500, Transient, IsTransient},
		{502, Transient, IsTransient},
		{503, Transient, IsTransient},
		{504, Transient, IsTransient},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			e := decodeError(tt.status, nil)
			if e.Class != tt.class {
				t.Errorf("class: got %v want %v", e.Class, tt.class)
			}
			var err error = e
			if !tt.is(err) {
				t.Errorf("helper does not recognise %v", err)
			}
			if tt.class == Auth && !errors.Is(err, ErrAuth) {
				t.Error("errors.Is(err, ErrAuth) is false")
			}
		})
	}
}

func FuzzDecodeError(f *testing.F) {
	files, _ := filepath.Glob("testdata/errors/*.txt")
	for _, path := range files {
		b, _ := os.ReadFile(path)
		_, rest, _ := strings.Cut(string(b), "--- body\n")
		body, _, _ := strings.Cut(rest, "--- want\n")
		f.Add(422, []byte(body))
	}
	f.Add(502, []byte("<html><script>x<"))
	f.Add(500, []byte(`{"violations":[{"propertyPath":1,"message":{}}]}`))
	f.Add(400, []byte("\xff\xfe<"))
	f.Add(502, []byte("ẞẞẞẞ<"))
	f.Add(502, []byte("İİ<SCRIPT>x</sCrIpT>ok"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeError(status, body)
		s := e.Error()
		if e.Status != status {
			t.Fatalf("status lost: %d", e.Status)
		}
		if len(e.Message) > 4*510 {
			t.Fatalf("message too long: %d", len(e.Message))
		}
		_ = s
	})
}

// TestPlainTextRuneSafe reads bodies whose lowercase form has another byte
// length than the body (ẞ and İ shrink or grow); it used to panic. A "<"
// that opens no tag is text, as a browser shows it.
func TestPlainTextRuneSafe(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"sharp s before a bare <", "ẞẞẞẞ<", "ẞẞẞẞ<"},
		{"less-than in text", "limit < 5 rows<br>retry", "limit < 5 rows retry"},
		{"unterminated tag", "Bad gateway <di", "Bad gateway"},
		{"dotted I before script", "İİ<SCRIPT>alert(1)</sCrIpT> ok", "İİ ok"},
		{"style in capitals", "<STYLE>b{}</STYLE><p>Bad &amp; gateway</p>", "Bad & gateway"},
		{"unterminated script", "a<script>x<", "a"},
		{"invalid utf-8", "\xff<b>x</b>", "? x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainText([]byte(tt.body)); got != tt.want {
				t.Errorf("plainText(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

// TestClipRuneSafe checks that every clipped message stays valid UTF-8.
func TestClipRuneSafe(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"ẞẞẞ", 2, "ẞẞ…"},
		{"abc", 3, "abc"},
		{"äöü", 0, "…"},
	}
	for _, tt := range tests {
		if got := model.Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	long := strings.Repeat("ẞ", 600)
	e := decodeError(422, []byte(`{"violations":[{"propertyPath":"sku","message":"`+long+`"}]}`))
	if m := e.Violations[0].Message; !utf8.ValidString(m) || utf8.RuneCountInString(m) != 501 {
		t.Errorf("violation message not clipped rune-safe: %d runes", utf8.RuneCountInString(m))
	}
}
