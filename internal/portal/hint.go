package portal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"
)

// Hint says what the operator should look at in the configuration of the
// portal named portalName after err, or "" when err holds no failed portal
// call (*Error) that the configuration explains. Errors of this package say
// what the portal answered; the commands, logs and reports that show them
// add this advice.
func Hint(err error, portalName string) string {
	var (
		e   *Error
		dns *net.DNSError
		ne  net.Error
	)
	if !errors.As(err, &e) {
		return ""
	}
	switch {
	case e.Class == Auth:
		return fmt.Sprintf("the portal refused the token: check token_env/token_file of [portals.%s]", portalName)
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf("check base_url and the resource path in [portals.%s.paths]", portalName)
	case e.Status != 0 || e.Err == nil:
		// The portal answered, or the client refused the call itself.
		return ""
	case errors.Is(e.Err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing listens there: check the host and port of base_url in [portals.%s] and that the portal (or the proxy in front of it) is up", portalName)
	case errors.As(e.Err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("the host name is unknown: check the spelling of base_url in [portals.%s] and this machine's DNS", portalName)
	case errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, os.ErrDeadlineExceeded) || errors.As(e.Err, &ne) && ne.Timeout():
		return fmt.Sprintf("no answer in time: check base_url in [portals.%s], firewalls and HTTPS_PROXY", portalName)
	}
	return ""
}
