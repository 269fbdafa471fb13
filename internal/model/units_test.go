package model_test

import (
	"reflect"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
)

// unitsModel has units shown as they are (celsius, watts), a counter's unit whose rate is
// another unit (joules, in watts), one whose rate is no unit of the catalog (bytes, with an
// alias), one whose rate shows scaled (millijoules, in watts × 0.001), one shown scaled
// (megahertz as hertz), a unitless one, and two suffixes one of which ends the other
// (bufferbytes sorts before bytes).
func unitsModel() *model.Model {
	return &model.Model{Units: map[string]model.Unit{
		"celsius":     {Display: model.Display{Grafana: "celsius", Scale: 1}, Suffix: "_celsius"},
		"watts":       {Display: model.Display{Grafana: "watt", Scale: 1}, Suffix: "_watts"},
		"joules":      {Display: model.Display{Grafana: "joule", Scale: 1}, Rate: &model.Display{Grafana: "watt", Scale: 1}, Suffix: "_joules"},
		"bytes":       {Display: model.Display{Grafana: "bytes", Scale: 1}, Rate: &model.Display{Grafana: "Bps", Scale: 1}, Suffix: "_bytes", GrafanaAliases: []string{"decbytes"}},
		"bufferbytes": {Display: model.Display{Grafana: "mbytes", Scale: 1e-6}, Suffix: "_fb_bytes"},
		"millijoules": {Display: model.Display{Grafana: "joule", Scale: 1e-3}, Rate: &model.Display{Grafana: "watt", Scale: 1e-3}},
		"megahertz":   {Display: model.Display{Grafana: "hertz", Scale: 1e6}},
		"count":       {Display: model.Display{Grafana: "none", Scale: 1}},
	}}
}

// TestUnitOf: a counter shows as its rate where its unit has one; a gauge, and a counter of a
// unit without a rate, as the unit itself.
func TestUnitOf(t *testing.T) {
	u := unitsModel().Units
	for _, c := range []struct {
		unit string
		kind model.Kind
		want string
	}{
		{"joules", model.KindCounter, "watt"},
		{"joules", model.KindGauge, "joule"},
		{"celsius", model.KindCounter, "celsius"},
		{"megahertz", model.KindGauge, "hertz"},
	} {
		if got := u[c.unit].Of(model.Field{Kind: c.kind}); got.Grafana != c.want {
			t.Errorf("%s of a %s shows as %q, want %q", c.unit, c.kind, got.Grafana, c.want)
		}
	}
}

// TestUnitLookups: UnitOfGrafana reads an id as the unit whose values it shows as they are (the
// unit's display at scale 1, or an alias; a scaled display, a rate's display and a unitless id
// claim none); RateUnit is the unit whose claimed display a rate shows as it is, else the unit
// per second (a scaled rate included); UnitOfName is the unit whose suffix ends the name, the
// longest where several do.
func TestUnitLookups(t *testing.T) {
	m := unitsModel()
	for _, c := range []struct {
		name   string
		lookup func(string) string
		want   map[string]string
	}{
		{"UnitOfGrafana", m.UnitOfGrafana, map[string]string{
			"celsius":  "celsius",
			"watt":     "watts",
			"decbytes": "bytes",
			"bytes":    "bytes",
			"hertz":    "",
			"mbytes":   "",
			"Bps":      "",
			"none":     "",
			"percent":  "",
		}},
		{"RateUnit", m.RateUnit, map[string]string{
			"joules":      "watts",
			"millijoules": "millijoules/s",
			"bytes":       "bytes/s",
			"celsius":     "celsius/s",
		}},
		{"UnitOfName", m.UnitOfName, map[string]string{
			"node_power_watts":       "watts",
			"gpu_memory_bytes":       "bytes",
			"gpu_fb_bytes":           "bufferbytes",
			"DCGM_FI_DEV_GPU_TEMP":   "",
			"gpu_temperature_kelvin": "",
		}},
	} {
		for in, want := range c.want {
			if got := c.lookup(in); got != want {
				t.Errorf("%s(%q) = %q, want %q", c.name, in, got, want)
			}
		}
	}
}

// TestGrafanaClaims: every id that shows a unit as it is, with the units it claims in name
// order; two units claiming one id are both listed, and the id is read as the first.
func TestGrafanaClaims(t *testing.T) {
	m := unitsModel()
	m.Units["kilowatts"] = model.Unit{Display: model.Display{Grafana: "kwatt", Scale: 1}, GrafanaAliases: []string{"watt"}}
	want := map[string][]string{
		"celsius":  {"celsius"},
		"watt":     {"kilowatts", "watts"},
		"kwatt":    {"kilowatts"},
		"joule":    {"joules"},
		"bytes":    {"bytes"},
		"decbytes": {"bytes"},
	}
	if got := m.GrafanaClaims(); !reflect.DeepEqual(got, want) {
		t.Errorf("GrafanaClaims = %v, want %v", got, want)
	}
	if got := m.UnitOfGrafana("watt"); got != "kilowatts" {
		t.Errorf("UnitOfGrafana(watt) with two claims = %q, want the first, kilowatts", got)
	}
}
