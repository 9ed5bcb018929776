package formats

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"
)

// rezip rewrites a workbook part by part: change may alter a part's header
// and raw (compressed) data, or return plain data to store compressed anew
// with a correct header.
func rezip(t testing.TB, data []byte, change func(fh *zip.FileHeader, raw []byte) (newRaw, plain []byte)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, zf := range zr.File {
		rc, err := zf.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		fh := zf.FileHeader
		newRaw, plain := change(&fh, raw)
		if plain != nil {
			fh := &zip.FileHeader{Name: zf.Name, Method: zip.Deflate}
			w, err := zw.CreateHeader(fh)
			if err == nil {
				_, err = w.Write(plain)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := zw.CreateRaw(&fh)
		if err == nil {
			_, err = w.Write(newRaw)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// unzipPart returns the content of a part.
func unzipPart(t testing.TB, data []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const sheetPart = "xl/worksheets/sheet1.xml"

// corruptWorkbooks are damaged variants of a valid 5-row reception
// workbook, by what is wrong with them.
func corruptWorkbooks(t testing.TB) (good []byte, bad map[string][]byte) {
	rows := [][]string{{"orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"}}
	for _, n := range []string{"R1", "R2", "R3", "R4", "R5"} {
		rows = append(rows, []string{n, "#3", "SUP-001", "2026-04-01T08:00:00Z", "SKU-" + n, "#2"})
	}
	good = workbook(t, "Sheet1", false, rows, "")
	only := func(f func(fh *zip.FileHeader, raw []byte) ([]byte, []byte)) func(*zip.FileHeader, []byte) ([]byte, []byte) {
		return func(fh *zip.FileHeader, raw []byte) ([]byte, []byte) {
			if fh.Name != sheetPart {
				return raw, nil
			}
			return f(fh, raw)
		}
	}
	sheet := unzipPart(t, good, sheetPart)
	cut := sheet[:bytes.Index(sheet, []byte(`<row r="4"`))]
	bad = map[string][]byte{
		// The headers declare a shorter sheet than its data.
		"declared shorter": rezip(t, good, only(func(fh *zip.FileHeader, raw []byte) ([]byte, []byte) {
			fh.UncompressedSize64 -= 200
			return raw, nil
		})),
		"declared longer": rezip(t, good, only(func(fh *zip.FileHeader, raw []byte) ([]byte, []byte) {
			fh.UncompressedSize64 += 200
			return raw, nil
		})),
		"crc mismatch": rezip(t, good, only(func(fh *zip.FileHeader, raw []byte) ([]byte, []byte) {
			fh.CRC32 ^= 0x5a5a
			return raw, nil
		})),
		// A deflate stream cut short, with its headers intact.
		"part cut": rezip(t, good, only(func(fh *zip.FileHeader, raw []byte) ([]byte, []byte) {
			return raw[:len(raw)/2], nil
		})),
		// A consistent archive whose sheet XML stops after row 3.
		"sheet ends early":  rezip(t, good, only(func(*zip.FileHeader, []byte) ([]byte, []byte) { return nil, cut })),
		"archive truncated": good[:len(good)-40],
	}
	return good, bad
}

// TestXLSXCorrupt: a workbook whose parts do not match their zip headers,
// or whose sheet is cut, is an error naming the file and the part, and no
// document of it is handed on.
func TestXLSXCorrupt(t *testing.T) {
	good, bad := corruptWorkbooks(t)
	if r := decodeBytes(t, "R.xlsx", good, Options{Edition: A}); r.err != nil || len(r.docs) != 5 || !r.sum.Valid() {
		t.Fatalf("good workbook: %v, %d docs%s", r.err, len(r.docs), dump(r.all()))
	}
	want := map[string]string{
		"declared shorter":  "holds more than the",
		"declared longer":   "ends before its",
		"crc mismatch":      "does not match its CRC-32 checksum",
		"part cut":          "has damaged compressed data",
		"sheet ends early":  "ends early: the sheet is cut before its closing </worksheet> tag",
		"archive truncated": "the zip archive is truncated or damaged",
	}
	for name, data := range bad {
		t.Run(name, func(t *testing.T) {
			r := decodeBytes(t, "R.xlsx", data, Options{Edition: A})
			if r.err == nil || !strings.Contains(r.err.Error(), want[name]) || !strings.HasPrefix(r.err.Error(), "R.xlsx ") {
				t.Fatalf("err %v, want %q", r.err, want[name])
			}
			if name != "archive truncated" && !strings.Contains(r.err.Error(), "part "+sheetPart) {
				t.Errorf("err %v does not name the part", r.err)
			}
			if len(r.docs) > 0 || r.sum.Rows > 0 {
				t.Errorf("%d documents, %d rows read from a damaged workbook", len(r.docs), r.sum.Rows)
			}
		})
	}
}
