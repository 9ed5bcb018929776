package portalsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// violation is one entry of a ConstraintViolationList.
type violation struct{ path, msg, code string }

type vset []violation

func (v *vset) add(path, msg, code string) { *v = append(*v, violation{path, msg, code}) }

// Symfony constraint codes (the last four are the simulator's own).
const (
	codeNotBlank = "c1051bb4-d103-4f74-8988-acbcafc7fdc3"
	codeTooLong  = "d94b19cc-114f-4f44-9cc4-4138e80a87b9"
	codeChoice   = "8e179f1b-97aa-4560-a02f-2a8b42e49df7"
	codePositive = "778b7ae0-84d3-481a-9dec-35fdb64b1d78"
	codeType     = "ba785a8c-82cb-4283-967c-3cf342181b40"
	codeUnique   = "23bd9dbf-6b9b-41cd-a99e-4844bcf3077f"
	codeEmail    = "bd79c0ab-ddba-46cc-a703-a7a4b08de310"
	codeCountry  = "8f900c12-61bd-455d-9398-996cd040f7f0"
	codeDate     = "1a9da513-2640-4f84-9b6a-4d99dcddc628"
	codeCount    = "bef8e338-6ae5-4caf-b8e2-50e7b0579e69"
	codeInvalid  = "fb3c5d2e-8d43-4c34-9d1b-6b1a9b1f6e01"
	codeEAN      = "3e5b6f4c-1d2a-4b7e-8f90-0a1b2c3d4e5f"
)

const (
	msgBlank   = "This value should not be blank."
	msgInvalid = "This value is not valid."
	msgUsed    = "This value is already used."
)

var errBody = errors.New("request body")

// decodeBody reads a JSON object body (numbers kept exact).
func decodeBody(r *http.Request, w http.ResponseWriter) (map[string]any, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty, expected a JSON object", errBody)
		}
		return nil, fmt.Errorf("%w: syntax error, malformed JSON: %v", errBody, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%w: expected a JSON object", errBody)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: syntax error, extra data after the JSON object", errBody)
	}
	return m, nil
}

// createDoc serves POST /api/<res>.
func (s *Sim) createDoc(w http.ResponseWriter, r *http.Request, res *resource) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "json") {
		s.writeError(w, http.StatusUnsupportedMediaType, "The content-type \""+ct+"\" is not supported: send application/json or application/ld+json.")
		return
	}
	m, err := decodeBody(r, w)
	if err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	d, vs := res.create(m)
	var body []byte
	if len(vs) == 0 {
		o := res.render(d)
		if !s.ch.CreateIDs && !listsID(res.name) {
			o = without(o, "@id", "id")
		}
		body = appendJSON(make([]byte, 0, 1024), withContext(res, o))
	}
	s.mu.Unlock()
	if len(vs) > 0 {
		for _, v := range vs {
			if v.code == codeUnique && !strings.ContainsRune(v.path, '[') {
				s.repeated.Add(1)
				break
			}
		}
		s.writeViolations(w, vs)
		return
	}
	status := res.createStatus
	if s.ch.CreateStatus != 0 {
		status = s.ch.CreateStatus
	}
	if s.ch.CreateIDs || listsID(res.name) {
		w.Header().Set("Location", res.path+"/"+itoa(d.meta().ID))
	}
	writeBody(w, status, body)
}

// writeViolations writes a 422 ConstraintViolationList.
func (s *Sim) writeViolations(w http.ResponseWriter, vs vset) {
	lines := make([]string, len(vs))
	list := make([]obj, len(vs))
	for i, v := range vs {
		lines[i] = v.path + ": " + v.msg
		list[i] = obj{{"propertyPath", v.path}, {"message", v.msg}, {"code", v.code}}
	}
	desc := strings.Join(lines, "\n")
	o := obj{{"@context", "/api/contexts/ConstraintViolationList"}, {"@type", "ConstraintViolationList"}}
	if s.plain {
		o = append(o, kv{"title", "An error occurred"}, kv{"detail", desc}, kv{"description", desc}, kv{"status", s.ch.ViolationStatus})
	} else {
		o = append(o, kv{"hydra:title", "An error occurred"}, kv{"hydra:description", desc})
	}
	o = append(o, kv{"violations", list})
	writeBody(w, s.ch.ViolationStatus, appendJSON(nil, o))
}
