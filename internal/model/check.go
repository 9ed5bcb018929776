package model

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// CheckEAN reports why s is not a valid EAN/GTIN (8, 12, 13 or 14 digits
// with a correct check digit), or nil.
func CheckEAN(s string) error {
	switch len(s) {
	case 8, 12, 13, 14:
	default:
		return fmt.Errorf("an EAN/GTIN has 8, 12, 13 or 14 digits, this one has %d characters", utf8.RuneCountInString(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return fmt.Errorf("an EAN/GTIN holds digits only, found %q", c)
		}
	}
	if got, want := s[len(s)-1], EANCheckDigit(s[:len(s)-1]); got != want {
		return fmt.Errorf("check digit is %c, should be %c: the EAN has a typo", got, want)
	}
	return nil
}

// EANCheckDigit is the digit that completes digits (an EAN/GTIN without
// its check digit; digits only) into a valid EAN/GTIN.
func EANCheckDigit(digits string) byte {
	// Weights 3,1,3,1... from the right.
	sum := 0
	for i, w := len(digits)-1, 3; i >= 0; i, w = i-1, 4-w {
		sum += int(digits[i]-'0') * w
	}
	return byte('0' + (10-sum%10)%10)
}

// CheckEmail reports why s does not look like an e-mail address, or nil.
func CheckEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return fmt.Errorf("%q is not an e-mail address (expected name@domain.tld)", s)
	}
	return nil
}

// CheckCountry reports why s is not an ISO 3166-1 alpha-2 code, or nil.
func CheckCountry(s string) error {
	if len(s) == 2 && strings.Contains(isoCountries, " "+s+" ") {
		return nil
	}
	if len(s) == 2 && strings.Contains(isoCountries, " "+strings.ToUpper(s)+" ") {
		return fmt.Errorf("country code %q must be upper case: %s", s, strings.ToUpper(s))
	}
	return fmt.Errorf("%q is not an ISO 3166 alpha-2 country code (e.g. FR, DE, SE)", s)
}

// Clip shortens s to at most n runes, never cutting inside one, and marks
// the cut with "…": a value quoted in a message, a message read from a
// response body.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

const isoCountries = " AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW "
