package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// TestCheckRoughEdges: a missing token is said once and the other checks go
// on; an unreachable base_url, a refused token and a wrong path get the hint
// that names the portal's section.
func TestCheckRoughEdges(t *testing.T) {
	down := deadURL(t)
	_, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA})

	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, baseURL, tokenEnv string) string {
		return writeFile(t, filepath.Join(dir, name), checkConfig(baseURL, fmt.Sprintf("token_env = %q", tokenEnv))+`
[[inboxes]]
name = "erp"
portal = "main"
url = "in"
`, 0o600)
	}
	t.Setenv("FB_CHECK_TEST_TOKEN", "secret-value")
	t.Setenv("FB_CHECK_TEST_SIM_TOKEN", "demo-token")
	tests := []struct {
		name   string
		cfg    string
		code   int
		want   []string
		wantN1 string // appears exactly once
	}{
		{"token unset", write("unset.toml", down, "FB_CHECK_TEST_UNSET"), exitUsage,
			[]string{"FAIL secrets: ", "skip portal main: not called", "ok   inbox erp:", "ok   journal"},
			"FB_CHECK_TEST_UNSET is not set"},
		{"portal down", write("down.toml", down, "FB_CHECK_TEST_TOKEN"), exitUnreachable,
			[]string{"FAIL portal main: ", "nothing listens there: check the host and port of base_url in [portals.main]", "ok   inbox erp:"},
			"config " + dir},
		{"token refused", write("refused.toml", srv.URL+"/api", "FB_CHECK_TEST_TOKEN"), exitInvalid,
			[]string{"FAIL portal main: ", "401 Unauthorized", "; the portal refused the token: check token_env/token_file of [portals.main] (the token was read from token_env FB_CHECK_TEST_TOKEN)"},
			"refused the token"},
		{"wrong path", write("path.toml", srv.URL+"/nope", "FB_CHECK_TEST_SIM_TOKEN"), exitUnreachable,
			[]string{"FAIL portal main: ", "404 Not Found", "; check base_url and the resource path in [portals.main.paths] (base_url usually ends in /api)"},
			"check base_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := runCheck(t.Context(), tt.cfg, &out)
			got := out.String()
			checkOutput(t, got, exitCode(err), tt.code, tt.want...)
			if n := strings.Count(got, tt.wantN1); n != 1 {
				t.Errorf("%q appears %d times, want once:\n%s", tt.wantN1, n, got)
			}
			if strings.Contains(got, "secret-value") {
				t.Errorf("output shows the token:\n%s", got)
			}
		})
	}
}

// TestCheckRenames: check tests whether each SFTP server refuses a rename
// onto an existing name and says how filebridge keeps from overwriting
// where it does not.
func TestCheckRenames(t *testing.T) {
	strict := sftptest.NewServer(t)
	overwriting := sftptest.NewOverwritingServer(t)
	dir := t.TempDir()
	var inboxes strings.Builder
	for _, s := range []struct {
		name string
		srv  *sftptest.Server
	}{{"strict", strict}, {"overwriting", overwriting}} {
		if err := s.srv.Client(t).MkdirAll("/in"); err != nil {
			t.Fatal(err)
		}
		pw := writeFile(t, filepath.Join(dir, s.name+"-password"), s.srv.Password, 0o600)
		fmt.Fprintf(&inboxes, "[[inboxes]]\nname = %q\nportal = \"main\"\nurl = %q\npassword_file = %q\nknown_hosts = %q\n",
			s.name, s.srv.URL("/in"), pw, s.srv.KnownHostsFile)
	}
	cfg := writeFile(t, filepath.Join(dir, "config.toml"), checkConfig("http://127.0.0.1:1/api", `token_env = "FB_CHECK_RENAMES_UNSET"`)+inboxes.String(), 0o600)
	var out strings.Builder
	_ = runCheck(t.Context(), cfg, &out)
	for _, want := range []string{
		"ok   inbox strict: " + strict.URL("/in") + ": host key verified, logged in, 0 file(s) waiting; the server refuses a rename onto an existing name",
		"ok   inbox overwriting: " + overwriting.URL("/in") + ": host key verified, logged in, 0 file(s) waiting; the server overwrites an existing name on a plain rename and has no hardlink@openssh.com: filebridge checks that the name is free before each rename",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, s := range []*sftptest.Server{strict, overwriting} {
		if names, err := s.Client(t).ReadDir("/in"); err != nil || len(names) != 0 {
			t.Errorf("check left %d entries in the folder (%v)", len(names), err)
		}
	}
}

// TestCheckSharesConnections: an inbox and an outbox on one SFTP account
// are checked on one connection, so a server that allows one connection
// per user passes check.
func TestCheckSharesConnections(t *testing.T) {
	srv := sftptest.NewServerConfig(t, sftptest.Config{OneConnectionPerUser: true})
	c := srv.Client(t)
	for _, d := range []string{"/in", "/out"} {
		if err := c.MkdirAll(d); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	pw := writeFile(t, filepath.Join(dir, "password"), srv.Password, 0o600)
	sftpKeys := fmt.Sprintf("password_file = %q\nknown_hosts = %q\n", pw, srv.KnownHostsFile)
	cfg := writeFile(t, filepath.Join(dir, "config.toml"), checkConfig("http://127.0.0.1:1/api", `token_env = "FB_CHECK_SHARED_UNSET"`)+fmt.Sprintf(`
[[inboxes]]
name = "erp"
portal = "main"
url = %q
%s
[[outboxes]]
name = "erp-out"
portal = "main"
url = %q
%s
  [[outboxes.exports]]
  type = "stock"
  schedule = "0 2 * * *"
`, srv.URL("/in"), sftpKeys, srv.URL("/out"), sftpKeys), 0o600)
	var out strings.Builder
	_ = runCheck(t.Context(), cfg, &out)
	for _, want := range []string{"ok   inbox erp: " + srv.URL("/in"), "ok   outbox erp-out: " + srv.URL("/out")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if got := srv.Accepted(); got != 2 { // the test's own client and check's
		t.Errorf("%d connections, want check's one and the test's", got)
	}
}

// TestCheckKnownHostsMissing: an SFTP inbox whose known_hosts file does not
// exist is diagnosed as that file missing, naming it and how to fill it,
// not as "the folder does not exist".
func TestCheckKnownHostsMissing(t *testing.T) {
	_, sim := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA})
	srv := sftptest.NewServer(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "ssh", "known_hosts")
	host, port, err := net.SplitHostPort(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FB_CHECK_KH_TOKEN", "demo-token")
	t.Setenv("FB_CHECK_KH_PASSWORD", srv.Password)
	cfg := writeFile(t, filepath.Join(dir, "config.toml"), checkConfig(sim.URL+"/api", `token_env = "FB_CHECK_KH_TOKEN"`)+fmt.Sprintf(`
[[inboxes]]
name = "erp"
portal = "main"
url = %q
password_env = "FB_CHECK_KH_PASSWORD"
known_hosts = %q
`, srv.URL("/"), missing), 0o600)
	var out strings.Builder
	err = runCheck(t.Context(), cfg, &out)
	got := out.String()
	checkOutput(t, got, exitCode(err), exitUnreachable,
		"FAIL inbox erp: ", missing+" does not exist", "ssh-keyscan -p "+port+" "+host+" >> "+missing, "ssh-keygen -lf "+missing)
	if strings.Contains(got, "the folder does not exist") {
		t.Errorf("a missing known_hosts is reported as a missing folder:\n%s", got)
	}
}

// checkConfig is the head of the configurations of the check tests: the
// journal in state/ and the Edition A portal main at baseURL with auth.
func checkConfig(baseURL, auth string) string {
	return testkit.PortalConfig("state/journal.db", "A", baseURL, auth)
}
