package synth

import (
	"fmt"
	"strconv"
	"testing"
)

// TestMatchersQuoteAsGo: label values are quoted as strconv.Quote quotes them, the plain
// ASCII ones without its Unicode tables included.
func TestMatchersQuoteAsGo(t *testing.T) {
	for _, v := range []string{"", "llm-0", "GPU-node-a-0", `a"b`, `back\slash`, "tab\tand\nnewline", "nul\x00", "del\x7f", "ünï", "日本", "\xff", "{{ $labels.x }}", "~ !"} {
		got := Labels{"v": v}.Matchers()
		if want := "{v=" + strconv.Quote(v) + "}"; got != want {
			t.Errorf("Matchers of %q = %s, want %s", v, got, want)
		}
	}
}

// TestIdentifiersWriteAsFmt: a GPU's UUID and PCI bus id, written without fmt, read as the
// fmt formats that name them, across sequence numbers past every field's width.
func TestIdentifiersWriteAsFmt(t *testing.T) {
	for _, seq := range []int{0, 1, 15, 16, 255, 4095, 4096, 65535, 65536, 1 << 24, 1<<32 + 7, 1<<48 - 1, 1 << 48} {
		g := GPU{Seq: seq}
		if want := fmt.Sprintf("GPU-%08x-%04x-4%03x-8000-%012x", uint32(seq)*2654435761, seq&0xffff, seq&0xfff, seq); g.UUID() != want {
			t.Errorf("UUID of GPU %d = %s, want %s", seq, g.UUID(), want)
		}
	}
	for index := range 20 {
		g := GPU{Index: index}
		if want := fmt.Sprintf("00000000:%02X:00.0", 0x18+index*0x10); g.PCIBusID() != want {
			t.Errorf("PCI bus id of GPU %d = %s, want %s", index, g.PCIBusID(), want)
		}
	}
}
