// Command gen regenerates the templates/ folder: one CSV and one XLSX
// template per document type, in OUT/A and OUT/B.
//
//	go run ./internal/templates/gen -out templates
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"filebridge/internal/model"
	"filebridge/internal/templates"
)

func main() {
	out := flag.String("out", "templates", "folder to write the templates into")
	flag.Parse()
	for _, e := range model.Editions {
		paths, err := templates.Write(filepath.Join(*out, string(e)), e)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		for _, p := range paths {
			fmt.Println(p)
		}
	}
}
