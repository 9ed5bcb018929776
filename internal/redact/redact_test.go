package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://fb:s3cret@db:5432/fb?sslmode=require", "postgres://fb@db:5432/fb?sslmode=require"},
		{"postgresql://db/fb?password=s3cret&sslmode=disable", "postgresql://db/fb?sslmode=disable"},
		{"postgres://fb@db/fb", "postgres://fb@db/fb"},
		{"https://api:s3cret@portal.example.com/api", "https://api@portal.example.com/api"},
		{"https://portal.example.com/api", "https://portal.example.com/api"},
		{"postgres://fb:s3cret@db:port/fb", "(unparsable URL)"},
		{"", ""},
		{"host=db port=5432 user=fb password=s3cret dbname=fb", "host=db port=5432 user=fb dbname=fb"},
		{"password=s3cret host=db", "host=db"},
		{"host=db password = 's3cret with \\' quote' sslmode=require", "host=db sslmode=require"},
		{"host=db user=fb password=s3cret", "host=db user=fb"},
		{"host=db user=fb PASSWORD=s3cret", "host=db user=fb"},
	}
	for _, tt := range tests {
		got := URL(tt.in)
		if got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("URL(%q) leaks the password", tt.in)
		}
	}
}
