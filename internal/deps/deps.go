// Package deps pins the project's direct dependencies in go.mod while the
// packages that use them are being written. It is removed once every
// dependency has a real importer.
package deps

import (
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/go-co-op/gocron/v2"
	_ "github.com/gocarina/gocsv"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/pkg/sftp"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/spf13/cobra"
	_ "github.com/xuri/excelize/v2"
	_ "golang.org/x/crypto/ssh"
	_ "golang.org/x/crypto/ssh/knownhosts"
	_ "golang.org/x/text/encoding/charmap"
	_ "modernc.org/sqlite"
)
