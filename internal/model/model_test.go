package model

import "testing"

func TestCheckEAN(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"4006381333931", true},
		{"4006381333932", false},
		{"96385074", true},
		{"036000291452", true},
		{"14006381333938", true},
		{"400638133393", false},
		{"40063813339A1", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if err := CheckEAN(tt.in); (err == nil) != tt.ok {
				t.Errorf("CheckEAN(%q) = %v, want ok=%v", tt.in, err, tt.ok)
			}
		})
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct{ in, want string }{
		{"12.50", "12.5"}, {"007", "7"}, {"-0.0", "0"}, {"+3", "3"}, {".5", "0.5"}, {"5.", "5"},
		{"1e3", ""}, {"1,5", ""}, {"", ""}, {"-", ""}, {".", ""},
	}
	for _, tt := range tests {
		got, err := ParseDecimal(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseDecimal(%q) = %q, want error", tt.in, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("ParseDecimal(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestCheckCountryEmail(t *testing.T) {
	for _, c := range []string{"FR", "DE", "SE"} {
		if CheckCountry(c) != nil {
			t.Errorf("%s refused", c)
		}
	}
	for _, c := range []string{"fr", "XX", "FRA", ""} {
		if CheckCountry(c) == nil {
			t.Errorf("%q accepted", c)
		}
	}
	if CheckEmail("a.b@example.org") != nil || CheckEmail("a@b") == nil || CheckEmail("x y@z.org") == nil {
		t.Error("e-mail shape checks wrong")
	}
}

func TestSpecs(t *testing.T) {
	for _, e := range Editions {
		for _, dt := range DocTypes(e) {
			s, ok := SpecFor(e, dt.Kind)
			if !ok {
				t.Fatalf("%s %s: no spec", e, dt.Name)
			}
			if _, ok := s.Field(s.Key); !ok {
				t.Errorf("%s %s: key %q not a field", e, dt.Name, s.Key)
			}
			seen := map[string]bool{}
			for _, fl := range s.Fields {
				n := NormalizeHeader(fl.Name)
				if seen[n] {
					t.Errorf("%s %s: duplicate column %s", e, dt.Name, fl.Name)
				}
				seen[n] = true
			}
		}
	}
	if _, ok := SpecFor(EditionA, KindPackaging); ok {
		t.Error("edition A has no packagings")
	}
	if s, _ := SpecFor(EditionA, KindItem); s.Fields[0].MaxLen != 14 {
		t.Error("edition A sku length")
	}
	if s, _ := SpecFor(EditionB, KindItem); s.Fields[0].MaxLen != 17 {
		t.Error("edition B sku length")
	}
}
