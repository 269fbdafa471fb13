package emit

import (
	"bytes"
	"encoding/json"
	"testing"
)

// roundTrip is what SortedJSON stands for: v encoded, decoded into maps, slices and float64s,
// and encoded again with sorted keys, no HTML escaping and two-space indentation.
func roundTrip(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err = enc.Encode(generic)
	return out.Bytes(), err
}

// unsorted holds a fuzzed value where the encoder writes keys out of order: struct fields
// declared unsorted, and the raw JSON itself (its objects' keys and numbers as written).
type unsorted struct {
	Zeta  any             `json:"zeta"`
	Alpha json.RawMessage `json:"alpha"`
	Mid   []any           `json:"mid,omitempty"`
	Text  string          `json:"text"`
	HTML  string          `json:"<b>"`
}

// FuzzSortedJSON holds SortedJSON to the round trip through maps on any JSON value: objects
// nested in arrays, keys out of order and with escapes, numbers in every notation, strings with
// quotes, backslashes, brackets and HTML in them.
func FuzzSortedJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `{"b":1,"a":{"d":[{"z":1,"y":2}],"c":"x"}}`, `[1.0,1e2,-0,0.000001,1e-7,123456789012345678,1e21,-2.5E+3]`,
		`{"k\"q":"v \", [y]: {z} \" w","k":"\\","\u00e9":"<a href=\"x\">&amp;</a>","\u2028":"\u2029"}`,
		`{"title":"L1 fleet","panels":[{"gridPos":{"h":8,"w":12,"x":0,"y":0},"targets":[{"expr":"sum by (a) (x{y=~\"a|b\"})","refId":"A"}],"type":"timeseries"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, data) != nil {
			return // not JSON
		}
		var value any
		if json.Unmarshal(data, &value) != nil {
			return // beyond float64, or not valid UTF-8: the round trip refuses it too
		}
		v := unsorted{Zeta: value, Alpha: compact.Bytes(), Mid: []any{value, map[string]any{"y": value, "x": 1, "k\"é<": value}}, Text: string(data), HTML: "<&>"}
		want, wantErr := roundTrip(v)
		got, err := SortedJSON(v)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("SortedJSON error %v, the round trip's %v", err, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("SortedJSON(%q) =\n%s\nwant\n%s", data, got, want)
		}
	})
}
