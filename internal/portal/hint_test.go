package portal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestHint: the advice for each failure the configuration explains names
// the portal's own section; other failures get none.
func TestHint(t *testing.T) {
	refused := &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	unknownHost := &net.OpError{Op: "dial", Err: &net.DNSError{Name: "portal.invalid", IsNotFound: true}}
	const late = "no answer in time: check base_url in [portals.erp], firewalls and HTTPS_PROXY"
	tests := map[string]struct {
		err  error
		want string
	}{
		"nil":                     {nil, ""},
		"401":                     {decodeError(401, nil), "the portal refused the token: check token_env/token_file of [portals.erp]"},
		"404 wrapped":             {errors.Join(errors.New("listing"), decodeError(404, nil)), "check base_url and the resource path in [portals.erp.paths]"},
		"not found by the client": {&Error{Class: NotFound, Message: "the variant list does not hold it"}, ""},
		"422":                     {decodeError(422, []byte(`{"violations":[{"propertyPath":"sku","message":"blank"}]}`)), ""},
		"connection refused": {&Error{Class: Transient, Err: refused},
			"nothing listens there: check the host and port of base_url in [portals.erp] and that the portal (or the proxy in front of it) is up"},
		"unknown host":      {&Error{Class: Transient, Err: unknownHost}, "the host name is unknown: check the spelling of base_url in [portals.erp] and this machine's DNS"},
		"timeout":           {&Error{Class: Transient, Err: context.DeadlineExceeded}, late},
		"read deadline":     {&Error{Class: Transient, Err: os.ErrDeadlineExceeded}, late},
		"503":               {decodeError(503, nil), ""},
		"not a portal call": {fmt.Errorf("listing the SFTP folder: %w", refused), ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Hint(tt.err, "erp"); got != tt.want {
				t.Errorf("Hint(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}
